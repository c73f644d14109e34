/* Jackpot signage for one zone: its levels (zone levels and floor-wide ones) live over SSE;
 * a hit that is paid or being paid is celebrated with the machine and the amount for 12 s; a hit held
 * for verification is not celebrated (its level's row is marked "verification", no amount). */
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
  // A hit is celebrated only when it is paid or being paid: "awarded" (credited to the machine),
  // "handpay" (the machine is locked and an attendant pays it) or "at_machine" (a SAS machine pays it
  // as a legacy bonus). A hit held for "verification" (its
  // amount is above the maximum and may be voided) shows as such on its level's row: no celebration,
  // no amount. Anything else (an older server's message without a status, a void) is not celebrated.
  var PAYING = { awarded: 1, handpay: 1, at_machine: 1 };
  function onHit(h) {
    var s = shown[h.level];
    if (!s) return;  // not one of this sign's levels
    if (typeof h.new_value === "number") s.val.textContent = SS.won(h.new_value);
    if (h.status === "verification") {
      s.row.classList.add("verification");
      s.row.setAttribute("data-hit-status", "verification");
      s.row.setAttribute("data-verification-hit", h.hit);
      return;
    }
    if (!PAYING[h.status] || typeof h.amount !== "number") return;
    if (String(s.row.getAttribute("data-verification-hit")) === String(h.hit)) {
      s.row.classList.remove("verification");
      s.row.removeAttribute("data-hit-status");
      s.row.removeAttribute("data-verification-hit");
    }
    document.getElementById("cel-level").textContent = h.name + " " + SS.t("jackpot");
    document.getElementById("cel-amount").textContent = SS.won(h.amount);
    document.getElementById("cel-machine").textContent = SS.t("machine") + " " + h.machine;
    var c = document.getElementById("celebrate");
    c.hidden = false; c.setAttribute("data-hit", h.hit);
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
  SS.signage = { onMeters: onMeters, onHit: onHit };  // the handlers, for tests (tests/unit/test_signage_js.py)
  document.addEventListener("DOMContentLoaded", function () {
    SS.requireLogin(null, function () {
      loadCodes().catch(function () {}).then(function () {
        SS.jackpotStream({ onMeters: onMeters, onHit: onHit, onState: onState, onStale: onStale });
      });
    });
  });
})();
