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
        row("Ticket / 티켓", t.display_number), row("Type / 종류", t.type), row("Status / 상태", t.status),
        row("Issued / 발행", (t.issued_location || t.issued_by) + " #" + t.sequence), row("", SS.when(t.issued_at)),
        row("Paid / 지급", SS.when(t.redeemed_at)), row("At / 장소", (t.redeemed_channel || "") + " " + (t.redeemed_location || "")),
        row("Drawer / 서랍", paid.drawer), row("Cashier / 캐셔", t.redeemed_by || a.username),
        row("Printed / 인쇄", SS.when(new Date().toISOString())));
      if (/[?&]print=1/.test(location.search)) window.print();
    }).catch(function (e) { document.getElementById("amount").textContent = SS.problemText(e); });
    document.getElementById("print").addEventListener("click", function () { window.print(); });
  }
  document.addEventListener("DOMContentLoaded", function () { SS.requireLogin(["cashier", "supervisor", "auditor"], init); });
})();
