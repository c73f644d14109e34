/* Jackpot levels: live values (SSE), pause / resume, edit (parameters pending until the next hit),
 * hit history. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var levels = [];

  /* The parameters waiting for the next hit that differ from the ones in force. */
  function pendingText(p, lv) {
    if (!p) return "";
    return Object.keys(p).filter(function (k) {
      var now = lv[k === "overflow" ? "overflow_rule" : k];
      return now !== undefined && p[k] != null && p[k] !== now;
    }).map(function (k) { var v = p[k]; return k + "=" + (typeof v === "number" && !/ppm/.test(k) ? SS.won(v) : v); }).join(", ");
  }
  function act(code, what) {
    var reason = prompt(SS.t("reason") + " (" + SS.t(what) + " " + code + ")", "") ;
    if (reason === null) return;
    SS.api("POST", "/api/v1/jackpots/levels/" + code + "/" + what, { reason: reason }).then(load)
      .catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  function edit(lv) {
    var f = $("edit-form");
    $("editor").hidden = false; $("edit-code").textContent = lv.code; f.setAttribute("data-code", lv.code);
    f.name.value = lv.name; f.reset.value = lv.reset; f.ceiling.value = lv.ceiling; f.rate_ppm.value = lv.rate_ppm;
    f.min_bet.value = lv.min_bet || 0; f.reason.value = ""; $("edit-error").textContent = "";
    f.name.focus();
  }
  function render() {
    $("levels").tBodies[0].replaceChildren.apply($("levels").tBodies[0], levels.map(function (lv) {
      var paused = lv.status === "paused";
      return SS.el("tr", { "data-level": lv.code, "data-status": lv.status }, [
        SS.el("td", { text: lv.code }), SS.el("td", { text: lv.name }), SS.el("td", { text: lv.zone || lv.scope }),
        SS.el("td", { cls: "num val big", text: SS.won(lv.value) }), SS.el("td", { cls: "num", text: SS.won(lv.reset) }),
        SS.el("td", { cls: "num", text: SS.won(lv.ceiling) }), SS.el("td", { cls: "num", text: SS.num(lv.rate_ppm) }),
        SS.el("td", { cls: paused ? "warn" : "ok", i18n: paused ? "paused" : "active" }),
        SS.el("td", { cls: "muted pending", text: pendingText(lv.pending, lv) }),
        SS.el("td", {}, [
          SS.el("button", { cls: "btn secondary", type: "button", "data-action": paused ? "resume" : "pause",
            onclick: function () { act(lv.code, paused ? "resume" : "pause"); } }, [SS.t(paused ? "resume" : "pause")]), " ",
          SS.el("button", { cls: "btn secondary", type: "button", "data-action": "edit", onclick: function () { edit(lv); } }, [SS.t("edit")])])
      ]);
    }));
  }
  function loadHits() {
    SS.api("GET", "/api/v1/jackpots/hits?limit=50").then(function (r) {
      $("hits").tBodies[0].replaceChildren.apply($("hits").tBodies[0], r.hits.map(function (h) {
        return SS.el("tr", { "data-hit": h.id }, [SS.el("td", { text: SS.when(h.at) }), SS.el("td", { text: h.name + " (" + h.level + ")" }),
          SS.el("td", { text: h.machine }), SS.el("td", { text: h.zone }), SS.el("td", { cls: "num", text: SS.won(h.amount) }),
          SS.el("td", { text: h.status + (h.pay_method ? " · " + h.pay_method : "") })]);
      }));
    });
  }
  function load() {
    return SS.api("GET", "/api/v1/jackpots/levels").then(function (r) { levels = r.levels; render(); loadHits(); })
      .catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  function onMeters(msg) {
    var byCode = {}; msg.levels.forEach(function (l) { byCode[l.code] = l; });
    levels.forEach(function (lv) {
      var m = byCode[lv.code]; if (!m) return;
      var row = document.querySelector('tr[data-level="' + lv.code + '"] .val');
      lv.value = m.value;
      if (row) row.textContent = SS.won(m.value);
      if (m.status !== lv.status || m.cycle !== lv.cycle) load();
    });
  }
  function init() {
    load();
    SS.jackpotStream({ onMeters: onMeters, onHit: function () { load(); }, onState: function (s) { $("live").textContent = "● " + SS.t(s === "connected" ? "live" : s); } });
    $("edit-cancel").addEventListener("click", function () { $("editor").hidden = true; });
    $("edit-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var f = ev.target, code = f.getAttribute("data-code"), lv = levels.filter(function (l) { return l.code === code; })[0], body = {};
      if (f.name.value.trim() && f.name.value.trim() !== lv.name) body.name = f.name.value.trim();
      [["reset", "reset"], ["ceiling", "ceiling"], ["rate_ppm", "rate_ppm"], ["min_bet", "min_bet"]].forEach(function (p) {
        var v = parseInt(String(f[p[0]].value).replace(/[^\d-]/g, ""), 10);
        if (!isNaN(v) && v !== lv[p[1]] && !(p[0] === "min_bet" && !lv.min_bet && v === 0)) body[p[0]] = v;
      });
      if (f.reason.value.trim()) body.reason = f.reason.value.trim();
      SS.api("PATCH", "/api/v1/jackpots/levels/" + code, body).then(function () { $("editor").hidden = true; load(); })
        .catch(function (e) { $("edit-error").textContent = SS.problemText(e); });
    });
  }
  document.addEventListener("slotsys:lang", render);
  document.addEventListener("DOMContentLoaded", function () { SS.requireLogin(["operator"], init); });
})();
