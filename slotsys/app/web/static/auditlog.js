/* The audit log of privileged changes (auditor): filters, newest first, "More" follows the server's cursor; the CSV
 * export is built by the server (formula-like cells neutralised) and fetched with the bearer token, never in a URL.
 * Dates are gaming-calendar days in KST (Asia/Seoul): From is inclusive, To inclusive (sent as the next day 00:00). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var cursor = null;
  function fail(e) { $("error").textContent = SS.problemText(e); }
  function kst(day, plus) {
    var d = new Date(day + "T00:00:00+09:00"); d.setUTCDate(d.getUTCDate() + (plus || 0)); return d.toISOString();
  }
  function query() {
    var f = $("filters"), q = [];
    ["actor", "action", "subject", "outcome"].forEach(function (k) { if (f[k].value.trim()) q.push(k + "=" + encodeURIComponent(f[k].value.trim())); });
    if (f.from.value) q.push("from=" + encodeURIComponent(kst(f.from.value)));
    if (f.to.value) q.push("to=" + encodeURIComponent(kst(f.to.value, 1)));
    return q;
  }
  function change(e) {
    var parts = [];
    if (e.before) parts.push(JSON.stringify(e.before));
    if (e.after) parts.push(JSON.stringify(e.after));
    var text = parts.join(" → ");
    if (e.outcome === "refused" && e.detail && e.detail.problem) text = e.detail.problem;
    return text;
  }
  function load(more) {
    $("error").textContent = "";
    var q = query(); q.push("limit=50"); if (more && cursor) q.push("cursor=" + cursor);
    SS.api("GET", "/api/v1/audit/log?" + q.join("&")).then(function (r) {
      var tb = $("entries").querySelector("tbody"); if (!more) tb.textContent = "";
      r.entries.forEach(function (e) {
        tb.appendChild(SS.el("tr", { "data-id": e.id, "data-action": e.action, "data-outcome": e.outcome }, [SS.el("td", { text: SS.when(e.at) }),
          SS.el("td", { text: e.actor + " (" + e.role + ")" }), SS.el("td", { text: e.action }), SS.el("td", { text: e.subject }),
          SS.el("td", { cls: e.outcome === "refused" ? "error" : "", text: e.outcome }), SS.el("td", { text: change(e) }), SS.el("td", { text: e.reason })]));
      });
      cursor = r.next_cursor; $("more").hidden = !cursor;
    }, fail);
  }
  function exportCsv() {
    var q = query(); q.push("format=csv");
    SS.api("GET", "/api/v1/audit/log?" + q.join("&"), null, { blob: true }).then(function (blob) {
      var a = SS.el("a", { href: URL.createObjectURL(blob), download: "slotsys-audit-log.csv" });
      document.body.appendChild(a); a.click(); a.remove();
    }, fail);
  }
  document.addEventListener("DOMContentLoaded", function () {
    SS.apply();
    $("filters").addEventListener("submit", function (ev) { ev.preventDefault(); load(false); });
    $("more").addEventListener("click", function () { load(true); });
    $("export").addEventListener("click", exportCsv);
    SS.requireLogin(["auditor"], function () { load(false); });
  });
})();
