/* Printable redemption receipt (80 mm slip): the ticket as on file, paid where and when. */
(function () {
  "use strict";
  function row(k, v) { return SS.el("tr", {}, [SS.el("td", { text: k }), SS.el("td", { text: v == null ? "–" : String(v) })]); }
  function init(a) {
    var number = document.getElementById("slip").getAttribute("data-number").replace(/[\s-]/g, "");
    SS.api("GET", "/api/v1/tickets/" + number).then(function (t) {
      document.getElementById("amount").textContent = SS.won(t.amount);
      var paid = (t.events || []).filter(function (e) { return e.kind === "redeemed" || e.kind === "honoured_expired"; })[0] || {};
      document.getElementById("lines").replaceChildren(
        row(SS.both("ticket"), t.display_number), row(SS.both("type"), SS.tvBoth("ttype_", t.type)),
        row(SS.both("status"), SS.tvBoth("tstatus_", t.status)),
        row(SS.both("issued_at"), (t.issued_location || t.issued_by) + " #" + t.sequence), row("", SS.when(t.issued_at)),
        row(SS.both("redeemed_at"), SS.when(t.redeemed_at)),
        row(SS.both("redeemed_where"), SS.tvBoth("channel_", t.redeemed_channel) + " " + (t.redeemed_location || "")),
        row(SS.both("drawer"), paid.drawer), row(SS.both("cashier"), t.redeemed_by || a.username),
        row(SS.both("printed"), SS.when(new Date().toISOString())));
      if (/[?&]print=1/.test(location.search)) window.print();
    }).catch(function (e) { document.getElementById("amount").textContent = SS.problemText(e); });
    document.getElementById("print").addEventListener("click", function () { window.print(); });
  }
  document.addEventListener("DOMContentLoaded", function () { SS.requireLogin(["cashier", "supervisor", "auditor"], init); });
})();
