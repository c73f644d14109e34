/* Ticket kiosk: scan or type a ticket; the kiosk pays it from its cassette at once (recorded on the
 * ledger: POST /api/v1/kiosk/redeem) and shows the amount dispensed, or explains the refusal in
 * Korean and English. Then it is ready for the next ticket. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var clearTimer = null;

  function show(children) {
    $("result").replaceChildren.apply($("result"), children);
    SS.apply($("result"));
    clearTimeout(clearTimer);
    clearTimer = setTimeout(function () { $("result").replaceChildren(); }, 20000);
  }
  function cassette(a) {
    SS.api("GET", "/api/v1/kiosks/" + encodeURIComponent(a.username)).then(function (k) {
      $("cassette").textContent = a.username + " · " + SS.t("cassette") + " " + SS.won(k.cassette);
    }).catch(function () {});
  }
  function redeem(raw, a) {
    show([SS.el("p", { cls: "msg muted", text: "…" })]);
    SS.api("POST", "/api/v1/kiosk/redeem", { validation_number: raw }, { idem: true }).then(function (r) {
      show([SS.el("div", { cls: "huge ok", id: "dispensed", "data-amount": r.paid, text: SS.won(r.paid) }),
        SS.el("div", { cls: "ko", lang: "ko", "data-i18n": "take_cash", "data-i18n-lang": "ko" }),
        SS.el("div", { cls: "en", "data-i18n": "take_cash", "data-i18n-lang": "en" }),
        SS.el("p", { cls: "muted", text: r.ticket.display_number })]);
      cassette(a);
    }).catch(function (e) {
      var p = e instanceof SS.ApiError ? e.problem : { detail: String(e) };
      var w = SS.refusal(p), facts = [];
      if (p.redeemed_at) facts.push(SS.el("p", { cls: "muted", text: SS.when(p.redeemed_at) + " · " + SS.tvBoth("channel_", p.redeemed_channel) + " " + p.redeemed_location }));
      if (p.expires_at && (p.reason === "expired")) facts.push(SS.el("p", { cls: "muted", text: SS.both("tstatus_expired") + " " + SS.when(p.expires_at) }));
      show([SS.el("div", { cls: "ko bad", id: "refusal-ko", lang: "ko", "data-reason": p.reason || SS.problemCode(p), text: w[1] }),
        SS.el("div", { cls: "en bad", id: "refusal-en", text: w[0] })].concat(facts).concat([
        SS.el("p", { cls: "muted", text: SS.both("cashier_help") })]));
    }).then(function () { $("scan").focus(); });
  }
  function init(a) {
    cassette(a);
    $("scan").focus();
    $("scan-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var raw = $("scan").value.trim(); $("scan").value = "";
      if (raw) redeem(raw, a);
    });
  }
  document.addEventListener("DOMContentLoaded", function () { SS.requireLogin(["kiosk"], init); });
})();
