/* The handpay queue: GET /api/v1/handpays?state=pending (jackpot handpays and cancelled credits above the ticket
 * limit). Sign with POST /api/v1/handpays/<id>/sign (fresh Idempotency-Key): the paying attendant signs first; at
 * or above the two-person threshold a different supervisor signs second and that signature pays it. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var rows = [], me = null;

  function signers(h) {
    var s = [h.signer1 && (h.signer1 + " (" + h.signer1_role + ")"), h.signer2 && (h.signer2 + " (" + h.signer2_role + ")")];
    return s.filter(Boolean).join(" + ") + " · " + (h.signer2 ? 2 : (h.signer1 ? 1 : 0)) + "/" + h.signers_needed;
  }
  function sign(h) {
    $("error").textContent = "";
    SS.api("POST", "/api/v1/handpays/" + h.id + "/sign", null, { idem: true }).then(load)
      .catch(function (e) { $("error").textContent = SS.problemText(e); load(); });
  }
  function render() {
    var body = $("handpays").tBodies[0];
    body.replaceChildren.apply(body, rows.map(function (h) {
      var signed = (h.signer1 ? 1 : 0) + (h.signer2 ? 1 : 0);
      var last = signed + 1 >= h.signers_needed;
      return SS.el("tr", { "data-handpay": h.id, "data-state": h.state, "data-machine": h.machine }, [
        SS.el("td", { text: String(h.id) }),
        SS.el("td", { text: SS.when(h.created_at) }),
        SS.el("td", {}, [SS.el("a", { href: "/console/machines/" + encodeURIComponent(h.machine), text: h.machine })]),
        SS.el("td", { i18n: "hp_" + h.source }),
        SS.el("td", { cls: "num", text: SS.won(h.amount) }),
        SS.el("td", { cls: "signers", text: signers(h) }),
        SS.el("td", { cls: "state", i18n: "hp_" + h.state }),
        SS.el("td", {}, h.state === "pending" ? [SS.el("button", { cls: "btn", type: "button", "data-action": "sign",
          i18n: last ? "sign_pay" : "sign", onclick: function () { sign(h); } })] : [])
      ]);
    }));
    $("empty").hidden = rows.length > 0;
  }
  function load() {
    return SS.api("GET", "/api/v1/handpays?limit=100").then(function (r) {
      $("threshold").textContent = SS.won(r.two_person_won);
      rows = r.handpays.filter(function (h) { return h.state === "pending" || Date.now() - new Date(h.paid_at) < 3600000; });
      render();
    }).catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  document.addEventListener("slotsys:lang", render);
  document.addEventListener("DOMContentLoaded", function () {
    SS.requireLogin(["attendant", "supervisor"], function (a) { me = a; load(); setInterval(load, 5000); });
  });
})();
