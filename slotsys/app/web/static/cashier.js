/* Cashier station: drawer session, scan (keyboard-wedge scanner: digits then Enter, or typing),
 * check → pay → receipt; drawer balance and closing count. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var current = null;  // the last checked ticket {validation_number, amount, ...}
  var redraw = null;  // draws the result shown now again, in the language just chosen
  function view(fn) { redraw = fn; fn(); }
  document.addEventListener("slotsys:lang", function () { if (redraw) redraw(); });

  function loadDrawer() {
    return SS.api("GET", "/api/v1/cage/sessions/current").then(function (s) {
      $("open-form").hidden = true; $("close-form").hidden = false;
      $("drawer").replaceChildren(SS.el("dl", { cls: "kv" }, [
        SS.el("dt", { i18n: "drawer" }), SS.el("dd", { text: s.drawer + " · " + SS.t("session") + " " + s.session }),
        SS.el("dt", { i18n: "opening_float" }), SS.el("dd", { text: SS.won(s.opening_float) }),
        SS.el("dt", { i18n: "tickets_paid" }), SS.el("dd", { id: "tickets-paid", text: SS.num(s.tickets_paid) + " · " + SS.won(s.tickets_paid_amount) }),
        SS.el("dt", { i18n: "expected_cash" }), SS.el("dd", { id: "expected-cash", cls: "big", text: SS.won(s.expected_cash) })
      ]));
    }).catch(function (e) {
      if (e instanceof SS.ApiError && SS.problemCode(e.problem) === "no-open-drawer-session") {
        $("drawer").replaceChildren(SS.el("p", { cls: "warn", i18n: "no_drawer" }));
        $("open-form").hidden = false; $("close-form").hidden = true;
      } else { $("drawer-error").textContent = SS.problemText(e); }
    });
  }

  function fact(label, value) { return [SS.el("dt", { i18n: label }), SS.el("dd", { text: value })]; }
  function details(t) {
    var kv = [].concat(
      fact("number", t.display_number || t.validation_number), fact("type", SS.tv("ttype_", t.type)),
      fact("issued_by", (t.issued_location || t.issued_by) + " #" + t.sequence), fact("issued_at", SS.when(t.issued_at)),
      fact("expires_at", SS.when(t.expires_at)), fact("status", SS.tv("tstatus_", t.effective_status || t.status)));
    if (t.redeemed_at) kv = kv.concat(fact("redeemed_at", SS.when(t.redeemed_at)), fact("redeemed_where", SS.tv("channel_", t.redeemed_channel) + " " + t.redeemed_location));
    return SS.el("dl", { cls: "kv" }, kv);
  }

  function showRefusal(ref, ticket) {
    var words = SS.refusal(ref), ko = SS.lang() === "ko", facts = [];
    if (ref.redeemed_at) facts.push(SS.el("p", { id: "refusal-facts", text: SS.t("redeemed_at") + ": " + SS.when(ref.redeemed_at) +
      " · " + SS.t("redeemed_where") + ": " + SS.tv("channel_", ref.redeemed_channel) + " " + ref.redeemed_location }));
    if (ref.voided_at) facts.push(SS.el("p", { text: SS.when(ref.voided_at) + " · " + ref.voided_by + " · " + (ref.void_reason || "") }));
    if (ref.pending_location) facts.push(SS.el("p", { text: ref.pending_location + " · " + SS.when(ref.pending_since) }));
    $("result").replaceChildren.apply($("result"), [
      SS.el("div", { cls: "verdict bad", id: "verdict", "data-reason": ref.reason || SS.problemCode(ref), text: SS.t("not_payable") + ": " + SS.refusalText(ref) }),
      ko ? null : SS.el("div", { lang: "ko", cls: "bad", text: words[1] }),  // in English mode, the Korean too
      // the API's detail is English (it names facts); in Korean mode a known refusal is told by the line above
      SS.el("p", { cls: "muted", id: "refusal-detail", text: ko && SS.knownRefusal(ref) ? "" : (ref.detail || "") })
    ].filter(Boolean).concat(facts).concat(ticket ? [SS.el("div", { cls: "big", text: SS.won(ticket.amount) }), details(ticket)] : []));
  }

  function check(raw) {
    current = null; redraw = null;
    $("result").replaceChildren(SS.el("p", { cls: "muted", text: raw + " …" }));
    var digits = raw.replace(/[\s-]/g, "");
    SS.api("GET", "/api/v1/screens/tickets/" + encodeURIComponent(digits) + "/check").then(function (r) {
      var t = r.ticket;
      if (!r.payable) { view(function () { showRefusal(r.refusal, t); }); return; }
      current = t;
      view(function () {
        var pay = SS.el("button", { cls: "btn", id: "pay", type: "button", onclick: payCurrent }, [SS.t("pay") + " " + SS.won(t.amount)]);
        $("result").replaceChildren(
          SS.el("div", { cls: "verdict ok", id: "verdict", "data-reason": "payable", i18n: "payable" }),
          SS.el("div", { cls: "huge", id: "amount", text: SS.won(t.amount) }), details(t), pay);
      });
    }).catch(function (e) {
      if (e instanceof SS.ApiError) view(function () { showRefusal(Object.assign({ detail: e.problem.detail }, e.problem), null); });
      else { redraw = null; $("result").textContent = SS.problemText(e); }
    });
  }

  function payCurrent() {
    if (!current) return;
    var t = current; current = null;
    var btn = $("pay"); if (btn) btn.disabled = true;
    SS.api("POST", "/api/v1/cage/redeem", { validation_number: t.validation_number }, { idem: true }).then(function (r) {
      view(function () {
        $("result").replaceChildren(
          SS.el("div", { cls: "verdict ok", id: "verdict", "data-reason": "paid", text: SS.t("paid") + " " + SS.won(r.paid) }),
          SS.el("div", { cls: "huge", text: SS.won(r.paid) }), details(r.ticket),
          SS.el("a", { href: "/cashier/receipt/" + r.ticket.validation_number, id: "receipt-link", cls: "btn", i18n: "print_receipt" }));
      });
      loadDrawer();
    }).catch(function (e) {
      if (e instanceof SS.ApiError) view(function () { showRefusal(Object.assign({ detail: e.problem.detail }, e.problem), null); });
      else { redraw = null; $("result").textContent = SS.problemText(e); }
    }).then(function () { $("scan").focus(); });
  }

  function init() {
    loadDrawer();
    $("scan").focus();
    $("scan-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var raw = $("scan").value.trim();
      $("scan").value = "";
      if (raw) check(raw);
    });
    $("open-form").addEventListener("submit", function (ev) {
      ev.preventDefault(); $("drawer-error").textContent = "";
      var f = ev.target;
      SS.api("POST", "/api/v1/cage/sessions", { drawer: f.drawer.value.trim(), opening_float: parseInt(f.opening_float.value.replace(/\D/g, ""), 10) || 0 }, { idem: true })
        .then(loadDrawer).catch(function (e) { $("drawer-error").textContent = SS.problemText(e); });
    });
    $("close-form").addEventListener("submit", function (ev) {
      ev.preventDefault(); $("drawer-error").textContent = "";
      var counted = parseInt(ev.target.counted_cash.value.replace(/\D/g, ""), 10);
      if (isNaN(counted)) { $("drawer-error").textContent = SS.t("counted_cash") + "?"; return; }
      SS.api("POST", "/api/v1/cage/sessions/current/close", { counted_cash: counted }, { idem: true }).then(function (s) {
        $("drawer").replaceChildren(SS.el("p", { cls: "ok", i18n: "closed" }), SS.el("dl", { cls: "kv", id: "close-summary" }, [].concat(
          fact("expected_cash", SS.won(s.expected_cash)), fact("counted_cash", SS.won(s.counted_cash)), fact("variance", SS.won(s.variance)))));
        $("close-form").hidden = true; $("open-form").hidden = false;
      }).catch(function (e) { $("drawer-error").textContent = SS.problemText(e); });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { SS.requireLogin(["cashier"], init); });
})();
