/* A machine: state, meters and its last 10 games drawn as reel windows ([row][reel] symbols;
 * winning positions outlined). GET /api/v1/floor/machines/<asset>. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var asset = $("machine-page").getAttribute("data-asset");

  function winCells(g) {
    var cells = {};
    (g.wins || []).forEach(function (w) { (w.positions || []).forEach(function (p) { cells[p[0] + ":" + p[1]] = 1; }); });
    return cells;
  }
  function reelWindow(g, m) {
    var win = winCells(g), rows = g.window || [];
    var grid = SS.el("div", { cls: "reels", style: "grid-template-columns: repeat(" + (rows[0] ? rows[0].length : m.reels) + ", 52px)" });
    rows.forEach(function (row, r) {
      row.forEach(function (sym, c) {
        var kind = (m.symbols[sym] || {}).kind || "regular";
        grid.appendChild(SS.el("div", { cls: "sym k-" + kind + (win[r + ":" + c] ? " win" : ""), title: sym, text: sym }));
      });
    });
    return grid;
  }
  function betText(g) {
    var b = g.bet || {};
    return (b.lines ? b.lines + " " + SS.t("lines") : SS.t("reels") + " 1-" + b.reels) + " × " + b.multiplier;
  }
  function render(m) {
    $("state").replaceChildren(SS.el("span", { cls: "mc s-" + m.state, style: "display:inline-block", id: "machine-state", "data-state": m.state, i18n: "state_" + m.state }));
    $("info").replaceChildren(
      SS.el("dt", { i18n: "game" }), SS.el("dd", { text: m.game_name + " (" + m.game + ", v" + m.variation + ")" }),
      SS.el("dt", { i18n: "zone" }), SS.el("dd", { text: m.zone + " / " + m.bank }),
      SS.el("dt", { i18n: "denomination" }), SS.el("dd", { text: SS.won(m.denomination) }),
      SS.el("dt", { i18n: "credits" }), SS.el("dd", { cls: "big", text: SS.won(m.credits) }),
      SS.el("dt", { i18n: "status" }), SS.el("dd", { id: "machine-status", "data-status": m.status, text: SS.tv("mstatus_", m.status) + (m.lock_reason ? " · " + m.lock_reason : "") }));
    var mt = m.meters;
    $("meters").tBodies[0].replaceChildren.apply($("meters").tBodies[0], Object.keys(mt).map(function (k) {
      var money = !/count|games|number/.test(k);
      // a human label ("Bills in" / "지폐 투입") from the catalogue; the field name if none is known
      return SS.el("tr", { "data-meter": k }, [SS.el("th", { text: SS.tv("m_", k), title: k }), SS.el("td", { cls: "num", text: money ? SS.won(mt[k]) : SS.num(mt[k]) })]);
    }));
    if (!m.games.length) { $("games").replaceChildren(SS.el("p", { cls: "muted", i18n: "no_games" })); return; }
    $("games").replaceChildren.apply($("games"), m.games.map(function (g) {
      return SS.el("div", { cls: "gamecard", "data-game": g.game_number }, [
        SS.el("div", {}, [SS.el("b", { text: "#" + g.game_number }), " " + SS.when(g.at)]),
        reelWindow(g, m),
        SS.el("div", { text: SS.t("bet") + " " + SS.won(g.bet_won) + " (" + betText(g) + ")" }),
        SS.el("div", { cls: g.win_won ? "ok" : "muted", text: SS.t("win") + " " + SS.won(g.win_won) + (g.free_games ? " · " + SS.t("free_games") + " " + g.free_games : "") }),
        (g.jackpots || []).length ? SS.el("div", { cls: "warn", text: g.jackpots.map(function (j) { return SS.t("jackpot") + " " + j.level + " " + SS.won(j.amount); }).join(", ") }) : null,
        SS.el("div", { cls: "muted", text: SS.won(g.credits_before) + " → " + SS.won(g.credits_after) })
      ]);
    }));
  }
  var lastEvents = null;
  function renderEvents(r) {
    var ko = SS.lang() === "ko", body = $("events").tBodies[0];
    $("link").textContent = r.link ? SS.t(r.link.online ? "online" : "offline") + " · " + SS.t("last_heard") + " " + SS.when(r.link.last_heard_at) : "";
    body.replaceChildren.apply(body, r.events.map(function (e) {
      return SS.el("tr", { "data-event": e.id, "data-kind": e.kind }, [
        SS.el("td", { text: SS.when(e.at) }), SS.el("td", { text: ko ? e.label_ko : e.label }),
        SS.el("td", { cls: "muted", text: e.sas_hex || "–" }),
        SS.el("td", { cls: e.severity === "critical" ? "bad" : (e.severity === "warning" ? "warn" : "muted"), i18n: "sev_" + e.severity }),
        SS.el("td", { text: e.game_number ? "#" + e.game_number : "" }), SS.el("td", { cls: "muted", text: e.source })]);
    }));
    $("no-events").hidden = r.events.length > 0;
  }
  function loadEvents() {
    SS.api("GET", "/api/v1/machines/" + encodeURIComponent(asset) + "/events?limit=50")
      .then(function (r) { lastEvents = r; renderEvents(r); }).catch(function () { /* the meters' error shows */ });
  }
  var last = null;
  function load() {
    loadEvents();
    SS.api("GET", "/api/v1/floor/machines/" + encodeURIComponent(asset)).then(function (m) { last = m; render(m); })
      .catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  document.addEventListener("slotsys:lang", function () { if (last) render(last); if (lastEvents) renderEvents(lastEvents); });
  document.addEventListener("DOMContentLoaded", function () {
    SS.requireLogin(["operator", "attendant", "auditor"], function () { load(); setInterval(load, 5000); });
  });
})();
