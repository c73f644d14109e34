/* The attendants' alert queue, live: GET /api/v1/alerts?state=active, refreshed on every `alert` notice of the
 * console's stream (SS.jackpotStream; the notice carries only the alert's id and state, the details come from
 * the API with this user's token) and every 15 s as a net. Acknowledge / dispatch / resolve with
 * POST /api/v1/alerts/<id>/<action> (attendant, supervisor). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var rows = [], canAct = false, pending = null;

  function label(a) { return SS.lang() === "ko" ? a.label_ko : a.label; }
  function who(a) {
    return [a.acknowledged_by && (SS.t("alert_acknowledged") + ": " + a.acknowledged_by),
            a.dispatched_to && (SS.t("alert_dispatched") + ": " + a.dispatched_to)].filter(Boolean).join(" · ");
  }
  function act(a, action) {
    var body = action === "acknowledge" ? null : {};
    SS.api("POST", "/api/v1/alerts/" + a.id + "/" + action, body).then(load)
      .catch(function (e) { $("error").textContent = SS.problemText(e); load(); });
  }
  function buttons(a) {
    if (!canAct) return [];
    var out = [];
    if (a.state === "open") out.push(SS.el("button", { cls: "btn", type: "button", "data-action": "acknowledge", i18n: "acknowledge", onclick: function () { act(a, "acknowledge"); } }));
    if (a.state === "open" || a.state === "acknowledged") out.push(SS.el("button", { cls: "btn secondary", type: "button", "data-action": "dispatch", i18n: "dispatch", onclick: function () { act(a, "dispatch"); } }));
    out.push(SS.el("button", { cls: "btn secondary", type: "button", "data-action": "resolve", i18n: "resolve", onclick: function () { act(a, "resolve"); } }));
    return out;
  }
  function render() {
    var body = $("alerts").tBodies[0];
    body.replaceChildren.apply(body, rows.map(function (a) {
      return SS.el("tr", { "data-alert": a.id, "data-state": a.state, "data-kind": a.kind, cls: a.security ? "security" : "" }, [
        SS.el("td", { text: String(a.id) }),
        SS.el("td", { text: SS.when(a.opened_at) }),
        SS.el("td", {}, [SS.el("a", { href: "/console/machines/" + encodeURIComponent(a.machine), text: a.machine })]),
        SS.el("td", {}, [a.security ? SS.el("b", { cls: "bad", i18n: "security" }) : null, a.security ? " " : null,
                         label(a) + (a.repeats ? " ×" + (a.repeats + 1) : "")]),
        SS.el("td", { cls: a.severity === "critical" ? "bad" : (a.severity === "warning" ? "warn" : "muted"), i18n: "sev_" + a.severity }),
        SS.el("td", { cls: "state", i18n: "alert_" + a.state }),
        SS.el("td", { text: who(a) }),
        SS.el("td", {}, buttons(a))
      ]);
    }));
    $("empty").hidden = rows.length > 0;
  }
  function load() {
    return SS.api("GET", "/api/v1/alerts?state=active&limit=200").then(function (r) { rows = r.alerts; render(); })
      .catch(function (e) { $("error").textContent = SS.problemText(e); });
  }
  function soon() { clearTimeout(pending); pending = setTimeout(load, 150); }  // a burst of notices: one read
  document.addEventListener("slotsys:lang", render);
  document.addEventListener("DOMContentLoaded", function () {
    SS.requireLogin(["attendant", "supervisor", "operator", "auditor"], function (a) {
      canAct = ["attendant", "supervisor", "admin"].indexOf(a.role) >= 0;
      load();
      setInterval(load, 15000);
      SS.jackpotStream({ onAlert: soon, onState: function (s) { $("live").setAttribute("data-i18n", s); $("live").textContent = SS.t(s); $("live").setAttribute("data-state", s); } });
    });
  });
})();
