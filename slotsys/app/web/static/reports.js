/* Auditor reports beside the gaming-day report (dayreport.js): the ticket system's seven reports (issued,
 * redeemed, outstanding liability, expired, voided, reconciliation, security), jackpot hits, machine meters. Any array of rows in a report becomes a table with its own CSV export, made by the
 * server (the same URL + ?format=csv&table=NAME: slotsys/kernel/export.py, UTF-8 with BOM so spreadsheet
 * programs read the Korean text, formula-like text cells neutralised with a leading '). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var SOURCES = {
    outstanding: function () { return "/api/v1/tito/reports/outstanding"; },
    issued: function (f, t) { return "/api/v1/tito/reports/issued?from=" + f + "&to=" + t; },
    redeemed: function (f, t) { return "/api/v1/tito/reports/redeemed?from=" + f + "&to=" + t; },
    reconciliation: function () { return "/api/v1/tito/reports/reconciliation"; },
    security: function (f, t) { return "/api/v1/tito/reports/security?from=" + f + "&to=" + t; },
    expired: function (f, t) { return "/api/v1/tito/reports/expired?from=" + f + "&to=" + t; },
    voided: function (f, t) { return "/api/v1/tito/reports/voided?from=" + f + "&to=" + t; },
    hits: function () { return "/api/v1/jackpots/hits?limit=500"; },
    meters: function () { return "/api/v1/floor"; }
  };
  var MONEY = /amount|coin_in|coin_out|jackpot_out|bills_in|tickets_in$|tickets_out$|credits|value|total|outstanding|paid|hold/;

  function flat(obj, prefix, out) {
    Object.keys(obj).forEach(function (k) {
      var v = obj[k], key = prefix ? prefix + "." + k : k;
      if (v && typeof v === "object" && !Array.isArray(v)) flat(v, key, out); else out[key] = Array.isArray(v) ? JSON.stringify(v) : v;
    });
    return out;
  }
  function tablesOf(obj, path, out) {  // every array of objects, with its path
    Object.keys(obj || {}).forEach(function (k) {
      var v = obj[k], p = path ? path + "." + k : k;
      if (Array.isArray(v) && v.length && typeof v[0] === "object") {
        var table = { name: p, rows: [] }, children = {};
        out.push(table);
        v.forEach(function (r) {  // nested lists of rows (e.g. tickets per issue date) become their own table
          var own = {};
          Object.keys(r).forEach(function (k) {
            if (Array.isArray(r[k]) && r[k].length && typeof r[k][0] === "object") {
              (children[k] = children[k] || []).push.apply(children[k], r[k].map(function (c) { return flat(c, "", {}); }));
            } else own[k] = r[k];
          });
          table.rows.push(flat(own, "", {}));
        });
        Object.keys(children).forEach(function (k) { out.push({ name: p + "." + k, rows: children[k] }); });
      }
      else if (Array.isArray(v)) out.push({ name: p, rows: [] });
      else if (v && typeof v === "object") tablesOf(v, p, out);
    });
    return out;
  }
  function scalars(obj, path, out) {
    Object.keys(obj || {}).forEach(function (k) {
      var v = obj[k], p = path ? path + "." + k : k;
      if (v == null || typeof v !== "object") out.push([p, v]); else if (!Array.isArray(v)) scalars(v, p, out);
    });
    return out;
  }
  /* A column, table or summary name (a JSON path such as "meters.bills_in") in the screen's language: each part from
   * the catalogue (col_<name>, then the meter's m_<name>), the field name itself where it has none. The CSV exports
   * keep the field names: they are data for programs. A column is named by its last part alone ("meters.bills_in":
   * the meter's name; the path is its tooltip). */
  function word(part) { return SS.has("col_" + part) ? SS.t("col_" + part) : SS.tv("m_", part); }
  function label(path) { return path.split(".").map(word).join(" · "); }
  function column(path) { return word(path.split(".").pop()); }
  /* Words the API sends as codes (statuses, ticket types, channels, pay methods), per report. */
  var TICKETS = { status: "tstatus_", effective_status: "tstatus_", type: "ttype_", redeemed_channel: "channel_" };
  var CODES = { outstanding: TICKETS, expired: TICKETS, voided: TICKETS, issued: TICKETS, redeemed: TICKETS,
    reconciliation: TICKETS, security: TICKETS, hits: { status: "hstatus_", pay_method: "paymethod_" },
    meters: { status: "mstatus_" } };
  function cell(k, v, kind, row) {
    var part = k.split(".").pop(), prefix = (CODES[kind] || {})[part];
    if (typeof v === "boolean") return SS.t(v ? "yes" : "no");
    if (prefix && typeof v === "string") return SS.tv(prefix, v);
    if (part === "name" && row && row.code && kind === "meters") return SS.zoneName(row.code, v);
    if (typeof v === "number" && MONEY.test(k) && !/count|ppm|cycle/.test(k)) return SS.won(v);
    if (typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v)) return SS.when(v);
    return v == null ? "" : String(v);
  }
  function csv(rows, cols) {  // the same rules as the server's export (OWASP CSV injection: leading ' on = + - @ tab CR)
    var esc = function (v) {
      var text = typeof v === "string" && /^[=+\-@\t\r]/.test(v);
      v = v == null ? "" : String(v); if (text) v = "'" + v;
      return /[",\n\r]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v;
    };
    return "\ufeff" + [cols.map(esc).join(",")].concat(rows.map(function (r) { return cols.map(function (c) { return esc(r[c]); }).join(","); })).join("\r\n") + "\r\n";
  }
  function download(name, blob) {
    var a = SS.el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(a); a.click(); a.remove();
  }
  function exportCsv(url, table, file) {  // the server's CSV of this table
    $("error").textContent = "";
    SS.api("GET", url + (url.indexOf("?") < 0 ? "?" : "&") + "format=csv&table=" + encodeURIComponent(table), null, { blob: true })
      .then(function (b) { download(file, b); })
      .catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  var last = null;
  function render(kind, data, url) {
    last = [kind, data, url];
    $("summary").replaceChildren(SS.el("dl", { cls: "kv", id: "report-summary" }, [].concat.apply([], scalars(data, "", []).map(function (kv) {
      return [SS.el("dt", { text: label(kv[0]), title: kv[0] }), SS.el("dd", { text: cell(kv[0], kv[1], kind) })];
    }))));
    $("tables").replaceChildren.apply($("tables"), tablesOf(data, "", []).map(function (tb) {
      var cols = []; tb.rows.forEach(function (r) { Object.keys(r).forEach(function (k) { if (cols.indexOf(k) < 0) cols.push(k); }); });
      var file = "slotsys-" + kind + "-" + tb.name.replace(/\W+/g, "_") + "-" + $("from").value + "_" + $("to").value + ".csv";
      return SS.el("div", { cls: "panel", "data-table": tb.name }, [
        SS.el("h2", { title: tb.name }, [label(tb.name) + " ", SS.el("span", { cls: "muted", text: "(" + tb.rows.length + " " + SS.t("rows") + ")" })]),
        SS.el("button", { cls: "btn secondary csv", type: "button", "data-csv": tb.name, onclick: function () { exportCsv(url, tb.name, file); } }, [SS.t("csv")]),
        SS.el("div", { style: "overflow:auto" }, [SS.el("table", {}, [
          SS.el("thead", {}, [SS.el("tr", {}, cols.map(function (c) { return SS.el("th", { text: column(c), title: c, "data-col": c }); }))]),
          SS.el("tbody", {}, tb.rows.map(function (r) { return SS.el("tr", {}, cols.map(function (c) {
            return SS.el("td", { cls: typeof r[c] === "number" ? "num" : "", text: cell(c, r[c], kind, r) }); })); }))])])
      ]);
    }));
  }
  function load() {
    var kind = $("report").value;
    $("error").textContent = "";
    var url = SOURCES[kind]($("from").value, $("to").value);
    SS.api("GET", url).then(function (d) { render(kind, d, url); })
      .catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  function init() {
    var today = new Date().toLocaleDateString("sv-SE", { timeZone: "Asia/Seoul" });
    $("to").value = today;
    var d = new Date(Date.now() - 30 * 864e5).toLocaleDateString("sv-SE", { timeZone: "Asia/Seoul" });
    $("from").value = d;
    $("load").addEventListener("click", load);
    $("range-day").addEventListener("click", function () {  // the reports over the gaming day of the day report
      var day = document.getElementById("day");
      if (day && day.value) { $("from").value = day.value; $("to").value = day.value; load(); }
    });
    $("report").addEventListener("change", load);
    load();
  }
  window.SSReports = { csv: csv };
  document.addEventListener("slotsys:lang", function () { if (last) render.apply(null, last); });
  // one login for the whole screen: the gaming-day report (dayreport.js) starts with this one
  document.addEventListener("DOMContentLoaded", function () {
    SS.requireLogin(["auditor"], function () { init(); if (window.SSDayReport) window.SSDayReport.init(); });
  });
})();
