/* Jackpot signage for one zone: its levels (zone levels and floor-wide ones) live over SSE;
 * a hit is celebrated with the machine and the amount for 12 s. */
(function () {
  "use strict";
  var zone = document.getElementById("sign").getAttribute("data-zone");
  var shown = {};  // level code → {row, val}
  var hideTimer = null;

  var codes = null;  // the levels this sign shows: its zone's and the floor-wide ones (not table progressives)
  function loadCodes() {
    return SS.api("GET", "/api/v1/jackpots/levels").then(function (r) {
      codes = {};
      r.levels.forEach(function (lv) { if (lv.kind !== "table" && (lv.zone === zone || lv.scope === "floor")) codes[lv.code] = 1; });
    });
  }
  function mine(lv) { return codes ? !!codes[lv.code] : lv.zone === zone; }
  function onMeters(msg) {
    var box = document.getElementById("levels");
    var levels = msg.levels.filter(mine).sort(function (a, b) { return b.value - a.value; });
    levels.forEach(function (lv) {
      var s = shown[lv.code];
      if (!s) {
        s = shown[lv.code] = { row: SS.el("div", { cls: "lv", "data-level": lv.code }), val: SS.el("span", { cls: "val" }) };
        s.row.appendChild(SS.el("span", { cls: "nm", text: lv.name }));
        s.row.appendChild(s.val);
      }
      box.appendChild(s.row);  // keeps the order by value
      s.val.textContent = SS.won(lv.value);
      s.row.classList.toggle("paused", lv.status === "paused");
      s.row.classList.remove("stale");
    });
  }
  function onHit(h) {
    var s = shown[h.level];
    if (!s) return;  // not one of this sign's levels
    document.getElementById("cel-level").textContent = h.name + " " + SS.t("jackpot");
    document.getElementById("cel-amount").textContent = SS.won(h.amount);
    document.getElementById("cel-machine").textContent = SS.t("machine") + " " + h.machine;
    var c = document.getElementById("celebrate");
    c.hidden = false; c.setAttribute("data-hit", h.hit);
    if (s) s.val.textContent = SS.won(h.new_value);
    clearTimeout(hideTimer);
    hideTimer = setTimeout(function () { c.hidden = true; }, 12000);
  }
  function onState(st) {
    var el = document.getElementById("conn");
    el.setAttribute("data-state", st);
    el.setAttribute("data-i18n", st === "connected" ? "connected" : st);
    el.textContent = SS.t(st === "connected" ? "connected" : st);
  }
  function onStale() { Object.keys(shown).forEach(function (k) { shown[k].row.classList.add("stale"); }); }
  document.addEventListener("DOMContentLoaded", function () {
    SS.requireLogin(null, function () {
      loadCodes().catch(function () {}).then(function () {
        SS.jackpotStream({ onMeters: onMeters, onHit: onHit, onState: onState, onStale: onStale });
      });
    });
  });
})();
