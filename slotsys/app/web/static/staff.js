/* Staff administration (admin): create users with a role, change a role, disable / enable, reset a password,
 * list the active sessions and end one. Passwords are sent once and never shown again. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var ROLES = ["operator", "cashier", "attendant", "auditor", "admin", "supervisor", "kiosk", "host", "pit"];
  function fail(e) { $("error").textContent = SS.problemText(e); }
  function ok() { $("error").textContent = ""; load(); }

  function userRow(u) {
    var role = SS.el("select", { cls: "role", "data-user": u.username }, ROLES.map(function (r) {
      var o = SS.el("option", { value: r, text: r }); if (r === u.role) o.selected = true; return o; }));
    role.addEventListener("change", function () { SS.api("PATCH", "/api/v1/staff/users/" + encodeURIComponent(u.username), { role: role.value }).then(ok, fail); });
    var toggle = SS.el("button", { cls: "btn toggle", type: "button", i18n: u.active ? "disable" : "enable", onclick: function () {
      SS.api("PATCH", "/api/v1/staff/users/" + encodeURIComponent(u.username), { active: !u.active }).then(ok, fail); } });
    var pw = SS.el("input", { type: "password", cls: "new-password", "data-i18n-ph": "new_password", placeholder: SS.t("new_password") });
    var reset = SS.el("button", { cls: "btn reset", type: "button", i18n: "reset_password", onclick: function () {
      SS.api("POST", "/api/v1/staff/users/" + encodeURIComponent(u.username) + "/password", { new_password: pw.value })
        .then(function () { pw.value = ""; ok(); }, fail); } });
    return SS.el("tr", { "data-user": u.username, "data-active": String(u.active) }, [SS.el("td", { text: u.username }), SS.el("td", {}, [role]),
      SS.el("td", { cls: "active", i18n: u.active ? "active" : "disabled" }), SS.el("td", { text: String(u.sessions) }),
      SS.el("td", {}, [toggle, pw, reset])]);
  }

  function sessionRow(s) {
    return SS.el("tr", { "data-session": s.session_id, "data-user": s.username }, [SS.el("td", { text: s.username }), SS.el("td", { text: s.role }),
      SS.el("td", { text: SS.when(s.issued_at) }), SS.el("td", { text: SS.when(s.expires_at) }), SS.el("td", { text: s.address || "–" }),
      SS.el("td", {}, [SS.el("button", { cls: "btn end", type: "button", i18n: "end_session", onclick: function () {
        SS.api("DELETE", "/api/v1/staff/sessions/" + s.session_id).then(ok, fail); } })])]);
  }

  function load() {
    SS.api("GET", "/api/v1/staff/users").then(function (r) {
      var tb = $("users").querySelector("tbody"); tb.textContent = "";
      r.users.forEach(function (u) { tb.appendChild(userRow(u)); });
    }, fail);
    SS.api("GET", "/api/v1/staff/sessions").then(function (r) {
      var tb = $("sessions").querySelector("tbody"); tb.textContent = "";
      r.sessions.forEach(function (s) { tb.appendChild(sessionRow(s)); });
    }, fail);
  }

  document.addEventListener("DOMContentLoaded", function () {
    SS.apply();
    var form = $("create-form");
    ROLES.forEach(function (r) { form.role.appendChild(SS.el("option", { value: r, text: r })); });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      SS.api("POST", "/api/v1/staff/users", { username: form.username.value.trim(), password: form.password.value, role: form.role.value })
        .then(function (u) { form.password.value = ""; form.username.value = "";
          $("create-result").textContent = SS.t("created") + ": " + u.username + " (" + u.role + ")"; ok(); }, fail);
    });
    SS.requireLogin(["admin"], load);
  });
})();
