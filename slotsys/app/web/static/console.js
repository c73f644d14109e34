/* Operator console: the floor by zone and bank, each machine's state, credits, today's coin-in and
 * hold (GET /api/v1/floor/overview, refreshed every 5 s), and each SAS machine's link as its host last
 * published it (GET /api/v1/sas/links: polls, retries, timeouts, CRC errors, last exception, signature). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var last = null;

  function card(m) {
    return SS.el("a", { cls: "mc s-" + m.state, href: "/console/machines/" + m.asset, "data-asset": m.asset, "data-state": m.state,
      title: m.game_name + (m.lock_reason ? " · " + m.lock_reason : "") }, [
      SS.el("span", { cls: "st", i18n: "state_" + m.state }), SS.el("div", { cls: "asset", text: m.asset }),
      SS.el("div", { cls: "muted", text: m.game_name + " · " + SS.won(m.denomination) }),
      SS.el("div", {}, [SS.t("credits") + " ", SS.el("b", { cls: "credits", text: SS.won(m.credits) })]),
      SS.el("div", {}, [SS.t("coin_in_today") + " ", SS.el("b", { text: SS.won(m.today.coin_in) })]),
      SS.el("div", {}, [SS.t("hold_today") + " ", SS.el("b", { cls: m.today.hold < 0 ? "bad" : "", text: SS.won(m.today.hold) })])
    ]);
  }
  function render(f) {
    last = f;
    $("day").textContent = f.day + " · " + SS.t("updated") + " " + SS.when(f.generated_at);
    $("legend").replaceChildren.apply($("legend"), f.states.map(function (s) {
      return SS.el("span", {}, [SS.el("i", { cls: "dot d-" + s }), SS.t("state_" + s) + " " + f.totals.by_state[s]]);
    }));
    var T = f.totals;
    $("totals").tBodies[0].replaceChildren(SS.el("tr", {}, [
      SS.el("th", { i18n: "machines" }), SS.el("td", { text: SS.num(T.machines) }),
      SS.el("th", { i18n: "credits" }), SS.el("td", { cls: "num", text: SS.won(T.credits) }),
      SS.el("th", { i18n: "coin_in_today" }), SS.el("td", { cls: "num", id: "total-coin-in", text: SS.won(T.coin_in) }),
      SS.el("th", { i18n: "jackpot_today" }), SS.el("td", { cls: "num", text: SS.won(T.jackpot_out) }),
      SS.el("th", { i18n: "hold_today" }), SS.el("td", { cls: "num", text: SS.won(T.hold) }),
      SS.el("th", { i18n: "games_today" }), SS.el("td", { cls: "num", text: SS.num(T.games) })]));
    $("floor").replaceChildren.apply($("floor"), f.zones.map(function (z) {
      return SS.el("section", { cls: "zone panel", "data-zone": z.code }, [SS.el("h2", { text: SS.zoneName(z.code, z.name) + " (" + z.code + ")" })].concat(
        z.banks.map(function (b) {
          return SS.el("div", { cls: "bank", "data-bank": b.bank }, [SS.el("div", { cls: "muted", text: SS.t("bank") + " " + b.bank }),
            SS.el("div", { cls: "machines" }, b.machines.map(card))]);
        })));
    }));
  }
  var lastLinks = null;
  function cell(text, cls) { return SS.el("td", { cls: cls || "num", text: text }); }
  function renderLinks(r) {
    lastLinks = r;
    var box = $("sas-links");
    box.hidden = !r.links.length;
    $("sas-links-body").replaceChildren.apply($("sas-links-body"), r.links.map(function (l) {
      var state = l.stale ? SS.t("sas_stale") : SS.t("sas_state_" + l.state);
      return SS.el("tr", { "data-asset": l.asset, "data-link": l.stale ? "stale" : l.state, cls: l.stale || l.state !== "online" ? "bad" : "" }, [
        cell(l.channel, ""), cell(String(l.address)), SS.el("td", {}, [SS.el("a", { href: "/console/machines/" + l.asset, text: l.asset })]),
        cell(state, ""), cell(SS.t(l.enrolled ? "yes" : "no"), ""), cell(SS.num(l.polls)), cell(SS.num(l.retries)),
        cell(SS.num(l.timeouts)), cell(SS.num(l.crc_errors)), cell(l.last_exception || "—", ""),
        cell(SS.t("sas_sig_" + l.signature), l.signature === "mismatch" ? "bad" : ""),
        cell(l.cycle_p99_ms == null ? "—" : l.cycle_p99_ms.toFixed(0) + " ms"), cell(SS.when(l.reported_at), "")]);
    }));
  }
  function load() {
    SS.api("GET", "/api/v1/floor/overview").then(function (f) { $("error").textContent = ""; render(f); })
      .catch(function (e) { $("error").textContent = SS.problemText(e); });
    SS.api("GET", "/api/v1/sas/links").then(renderLinks).catch(function () { /* the floor above still shows */ });
  }
  document.addEventListener("slotsys:lang", function () { if (last) render(last); if (lastLinks) renderLinks(lastLinks); });
  document.addEventListener("DOMContentLoaded", function () {
    SS.requireLogin(["operator", "attendant", "auditor"], function () { load(); setInterval(load, 5000); });
  });
})();
