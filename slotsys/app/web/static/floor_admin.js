/* Floor administration: the floor plan (GET /api/v1/floor/plan) drawn as a grid; enrol a machine (its key is
 * shown once), disable / enable, move, change game, rotate its key or retire it, each with a reason.
 * Every refusal shows the problem's detail and field. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var CELL_W = 66, CELL_H = 46;
  var plan = null, selected = null;


  function int(v) { var s = String(v == null ? "" : v).replace(/[^\d]/g, ""); return s === "" ? undefined : parseInt(s, 10); }
  function fail(box) { return function (e) { $(box).textContent = SS.problemText(e); }; }

  function options(sel, items, value) {
    sel.replaceChildren.apply(sel, items.map(function (it) {
      var o = SS.el("option", { value: it[0], text: it[1] }); if (it[0] === value) o.selected = true; return o;
    }));
  }
  function fillSelects(games) {
    var banks = plan.banks.map(function (b) { return [b.code, b.code + " · " + b.name + " (" + b.zone + ")"]; });
    document.querySelectorAll(".bank-select").forEach(function (s) { options(s, banks, s.value); });
    if (games) document.querySelectorAll(".game-select").forEach(function (s) {
      options(s, games.map(function (g) { return [g.id, g.name + " (" + g.id + ")"]; }), s.value);
    });
  }

  function draw() {
    var box = $("plan"), nodes = [];
    var w = Math.max(plan.width + 2, 8), h = Math.max(plan.height + 2, 6), taken = {};
    plan.machines.forEach(function (m) { if (m.position) taken[m.position.x + "," + m.position.y] = m; });
    for (var y = 0; y < h; y++) for (var x = 0; x < w; x++) {
      if (taken[x + "," + y]) continue;
      (function (x, y) {
        nodes.push(SS.el("button", { type: "button", cls: "cell", "data-x": x, "data-y": y, title: x + ", " + y,
          style: "left:" + x * CELL_W + "px;top:" + y * CELL_H + "px", onclick: function () { enrolAt(x, y); } }));
      })(x, y);
    }
    var labelled = {};
    plan.machines.forEach(function (m) {
      if (!m.position) return;
      var p = m.position;
      if (!labelled[m.bank]) {
        labelled[m.bank] = true;
        nodes.push(SS.el("span", { cls: "banklabel", text: m.bank, style: "left:" + p.x * CELL_W + "px;top:" + (p.y * CELL_H + 42) + "px" }));
      }
      nodes.push(SS.el("button", { type: "button", cls: "fm st-" + m.status + (selected === m.asset_number ? " sel" : ""),
        "data-asset": m.asset_number, "data-status": m.status, title: m.game + " · ₩" + m.denomination,
        style: "left:" + p.x * CELL_W + "px;top:" + p.y * CELL_H + "px", onclick: function () { select(m.asset_number); } },
        [m.asset_number, SS.el("small", { text: m.bank + " · ₩" + SS.num(m.denomination) })]));
    });
    box.style.height = (h * CELL_H + 20) + "px";
    box.replaceChildren.apply(box, nodes);
  }

  function load(games) {
    return SS.api("GET", "/api/v1/floor/plan").then(function (r) {
      plan = r; fillSelects(games); draw();
      if (selected) select(selected);
    }).catch(fail("error"));
  }

  function enrolAt(x, y) {
    var f = $("enrol-form"); f.x.value = x; f.y.value = y; f.asset_number.focus();
  }

  function select(asset) {
    selected = asset;
    var m = plan.machines.filter(function (x) { return x.asset_number === asset; })[0];
    if (!m) { $("machine-panel").hidden = true; return; }
    $("machine-panel").hidden = false;
    $("sel-asset").textContent = asset;
    $("sel-status").textContent = m.status + (m.status_reason ? " · " + m.status_reason : "");
    var facts = [["zone", m.zone], ["bank", m.bank], ["game", m.game + (m.variation ? " @" + m.variation : "")],
      ["denomination", SS.won(m.denomination) + " (" + m.denominations.map(SS.won).join(", ") + ")"],
      ["fa_max_bet", m.max_bet == null ? "–" : SS.won(m.max_bet)], ["fa_serial", m.serial || "–"],
      ["fa_manufacturer", (m.manufacturer || "–") + " " + (m.model || "")], ["fa_scheme", m.validation_scheme]];
    $("sel-facts").replaceChildren.apply($("sel-facts"), facts.reduce(function (a, f) {
      return a.concat([SS.el("dt", { i18n: f[0] }), SS.el("dd", { text: f[1], "data-fact": f[0] })]);
    }, []));
    $("game-game").value = m.game; $("game-variation").value = m.variation; $("game-denomination").value = m.denomination;
    document.querySelectorAll(".plan .fm").forEach(function (b) { b.classList.toggle("sel", b.getAttribute("data-asset") === asset); });
  }

  function act(path, body) {
    $("act-error").textContent = ""; $("act-result").textContent = "";
    return SS.api("POST", "/api/v1/machines/" + selected + path, body).then(function (r) {
      $("act-result").textContent = SS.t("fa_done") + (r.key ? ": " + r.key : "");
      return load();
    }).catch(fail("act-error"));
  }
  function reason() { return $("act-reason").value.trim(); }

  function init() {
    SS.api("GET", "/api/v1/games").then(function (g) { return load(g.games); }).catch(fail("error"));
    $("enrol-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var f = ev.target, body = { asset_number: f.asset_number.value.trim(), bank: f.bank.value, game: f.game.value,
        denomination: int(f.denomination.value), validation_scheme: f.validation_scheme.value };
      if (f.variation.value.trim()) body.variation = f.variation.value.trim();
      if (f.denominations.value.trim()) body.denominations = f.denominations.value.split(/[ ,]+/).filter(Boolean).map(int);
      ["max_bet", "credit_limit", "x", "y"].forEach(function (k) { var v = int(f[k].value); if (v !== undefined) body[k] = v; });
      ["serial", "manufacturer", "model"].forEach(function (k) { if (f[k].value.trim()) body[k] = f[k].value.trim(); });
      $("enrol-error").textContent = ""; $("new-key").hidden = true;
      SS.api("POST", "/api/v1/machines", body).then(function (r) {
        $("new-key-value").textContent = r.key; $("new-key").hidden = false;
        selected = r.asset_number; f.asset_number.value = ""; return load();
      }).catch(fail("enrol-error"));
    });
    $("act-disable").addEventListener("click", function () { act("/disable", { reason: reason() }); });
    $("act-enable").addEventListener("click", function () { act("/enable", { reason: reason() }); });
    $("act-retire").addEventListener("click", function () { act("/retire", { reason: reason() }); });
    $("act-key").addEventListener("click", function () { act("/key", { reason: reason() }); });
    $("act-move").addEventListener("click", function () {
      var body = { bank: $("move-bank").value, reason: reason() }, x = int($("move-x").value), y = int($("move-y").value);
      if (x !== undefined) body.x = x; if (y !== undefined) body.y = y;
      act("/move", body);
    });
    $("act-game").addEventListener("click", function () {
      var body = { game: $("game-game").value, reason: reason() }, d = int($("game-denomination").value);
      if ($("game-variation").value.trim()) body.variation = $("game-variation").value.trim();
      if (d !== undefined) body.denomination = d;
      act("/game", body);
    });
  }
  document.addEventListener("slotsys:lang", function () { if (plan) { draw(); if (selected) select(selected); } });
  document.addEventListener("DOMContentLoaded", function () { SS.requireLogin(["operator"], init); });
})();
