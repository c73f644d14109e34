/* Par sheets: the exact figures per game and variation, and their charts (PNG fetched with the
 * bearer token, shown as object URLs). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var games = [];
  function pct(x) { return (x * 100).toFixed(4) + "%"; }

  function table(id, head, rows) {
    $(id).tBodies[0].replaceChildren.apply($(id).tBodies[0], [SS.el("tr", {}, head.map(function (h) { return SS.el("th", { text: h }); }))]
      .concat(rows.map(function (r) { return SS.el("tr", {}, r.map(function (c, i) { return SS.el("td", { cls: i ? "num" : "", text: c }); })); })));
  }
  function show() {
    var gid = $("game").value, v = $("variation").value;
    SS.api("GET", "/api/v1/games/" + gid + "/par-sheet?variation=" + encodeURIComponent(v)).then(function (s) {
      $("summary").replaceChildren(
        SS.el("dt", { i18n: "game" }), SS.el("dd", { text: s.name + " (" + s.game + ")" }),
        SS.el("dt", { i18n: "variation" }), SS.el("dd", { text: s.variation }),
        SS.el("dt", { i18n: "rtp_full" }), SS.el("dd", { cls: "big", id: "rtp-full", text: pct(s.rtp_full_bet) }),
        SS.el("dt", { i18n: "min_rtp" }), SS.el("dd", { text: pct(s.min_rtp) }),
        SS.el("dt", { i18n: "top_award" }), SS.el("dd", { text: s.top_award ? s.top_award.award + " · " + SS.num(s.top_award.pay_credits) + " cr · 1 in " + SS.num(Math.round(s.top_award.cycle)) : "–" }));
      var seen = {}, rows = [];
      s.options.forEach(function (o) {
        var k = o.bet.lines + "/" + o.bet.reels; if (seen[k]) return; seen[k] = 1;
        rows.push([o.bet.lines ? o.bet.lines + " lines" : "reels 1-" + o.bet.reels, pct(o.rtp), o.hit_frequency.toFixed(4), (o.line_hit_frequency || 0).toFixed(4), o.sd.toFixed(3), o.vi_90.toFixed(3)]);
      });
      table("options", [SS.t("option"), "RTP", SS.t("hit_freq"), SS.t("line_hit_freq"), "SD", "VI 90%"], rows);
      table("awards", [SS.t("award"), "credits", SS.t("probability"), SS.t("cycle")], s.awards.map(function (a) {
        return [a.award, SS.num(a.pay_credits), a.probability.toExponential(3), SS.num(Math.round(a.cycle))];
      }));
      $("charts").replaceChildren();
      s.charts.forEach(function (c) {
        var img = SS.el("img", { cls: "chart", alt: c, "data-chart": c });
        $("charts").appendChild(img);
        SS.api("GET", "/api/v1/games/" + gid + "/par-sheet/" + c + ".png?variation=" + encodeURIComponent(v), null, { blob: true })
          .then(function (b) { img.src = URL.createObjectURL(b); });
      });
    }).catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  function variations() {
    var g = games.filter(function (x) { return x.id === $("game").value; })[0];
    $("variation").replaceChildren.apply($("variation"), g.variations.map(function (v) {
      var o = SS.el("option", { value: v, text: v }); if (v === g.default_variation) o.selected = true; return o;
    }));
  }
  function init() {
    SS.api("GET", "/api/v1/games").then(function (r) {
      games = r.games;
      $("game").replaceChildren.apply($("game"), games.map(function (g) { return SS.el("option", { value: g.id, text: g.name }); }));
      variations(); show();
    }).catch(function (e) { $("error").textContent = SS.problemText(e); });
    $("game").addEventListener("change", function () { variations(); show(); });
    $("variation").addEventListener("change", show);
  }
  document.addEventListener("DOMContentLoaded", function () { SS.requireLogin(["operator", "auditor"], init); });
})();
