/* Games: upload a definition (validated by the server: errors name the field and the YAML line), its par sheet
 * summary per variation, and the second person's approval or rejection (never the uploader). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var me = null;
  function pct(x) { return x == null ? "–" : (x * 100).toFixed(2) + "%"; }
  function fail(e) { $("error").textContent = SS.problemText(e); }

  function showErrors(e) {
    var ul = $("upload-errors"); ul.textContent = "";
    var errs = (e instanceof SS.ApiError && e.problem.errors) || [];
    if (!errs.length) { ul.appendChild(SS.el("li", { text: SS.problemText(e) })); return; }
    errs.forEach(function (x) {
      ul.appendChild(SS.el("li", { "data-field": x.field || "", text: (x.line ? "line " + x.line + " · " : "") + (x.field || "") + ": " + x.message }));
    });
  }

  function decide(u, verb, reasonInput) {
    var body = verb === "approve" ? { reason: reasonInput.value } : { reason: reasonInput.value };
    SS.api("POST", "/api/v1/games/" + u.id + "/" + verb, body).then(load, fail);
  }

  function row(u) {
    var rtp = Object.keys(u.par_sheet_summary).map(function (v) { return "v" + v + " " + pct(u.par_sheet_summary[v].rtp_full_bet); }).join(", ");
    var cell = SS.el("td");
    if (u.status === "pending" && me && (me.role === "admin" || me.role === "supervisor")) {
      var reason = SS.el("input", { placeholder: SS.t("reason"), cls: "reason", "data-id": u.id });
      cell.appendChild(reason);
      cell.appendChild(SS.el("button", { cls: "btn approve", type: "button", "data-id": u.id, i18n: "approve", onclick: function () { decide(u, "approve", reason); } }));
      cell.appendChild(SS.el("button", { cls: "btn reject", type: "button", "data-id": u.id, i18n: "reject", onclick: function () { decide(u, "reject", reason); } }));
    } else if (u.status !== "pending") {
      cell.textContent = (u.decided_by || "") + (u.reason ? " · " + u.reason : "") + (u.approved_variations.length ? " · v" + u.approved_variations.join(", v") : "");
    }
    return SS.el("tr", { "data-id": u.id, "data-status": u.status }, [
      SS.el("td", {}, [SS.el("a", { href: "#", text: String(u.id), onclick: function (ev) { ev.preventDefault(); detail(u.id); } })]),
      SS.el("td", { text: u.game_id + " · " + u.name }), SS.el("td", { cls: "status", text: u.status }),
      SS.el("td", { text: u.uploaded_by + " · " + SS.when(u.uploaded_at) }), SS.el("td", { text: rtp }), cell]);
  }

  function detail(id) {
    SS.api("GET", "/api/v1/games/" + id).then(function (u) {
      $("detail").hidden = false;
      $("detail-title").textContent = "#" + u.id + " " + u.name + " (" + u.game_id + ")";
      var kv = $("detail-kv"); kv.textContent = "";
      [["sha256", u.sha256], ["status", u.status], ["variations", u.variations.join(", ")]].forEach(function (p) {
        kv.appendChild(SS.el("dt", { text: p[0] })); kv.appendChild(SS.el("dd", { text: p[1] }));
      });
      var tb = $("detail-sheet").querySelector("tbody"); tb.textContent = "";
      tb.appendChild(SS.el("tr", {}, [SS.el("th", { i18n: "variation" }), SS.el("th", { i18n: "rtp_full" }), SS.el("th", { i18n: "min_rtp" }),
        SS.el("th", { text: "max RTP" }), SS.el("th", { text: "max award" })]));
      Object.keys(u.par_sheet_summary).forEach(function (v) {
        var s = u.par_sheet_summary[v];
        tb.appendChild(SS.el("tr", { "data-variation": v }, [SS.el("td", { text: v }), SS.el("td", { text: pct(s.rtp_full_bet) }),
          SS.el("td", { text: pct(s.min_rtp) }), SS.el("td", { text: pct(s.max_rtp) }), SS.el("td", { text: SS.num(s.max_award_credits) })]));
      });
    }, fail);
  }

  function load() {
    $("error").textContent = "";
    SS.api("GET", "/api/v1/games/uploads").then(function (r) {
      var tb = $("uploads").querySelector("tbody"); tb.textContent = "";
      r.games.forEach(function (u) { tb.appendChild(row(u)); });
      var cat = $("catalogue"); cat.textContent = "";
      r.catalogue.forEach(function (g) { cat.appendChild(SS.el("li", { text: g.game_id + " · " + g.name + " · v" + g.variations.join(", v") })); });
    }, fail);
  }

  document.addEventListener("DOMContentLoaded", function () {
    SS.apply();
    $("file").addEventListener("change", function () {
      var f = $("file").files[0]; if (!f) return;
      f.text().then(function (txt) { $("definition").value = txt; });
    });
    $("upload-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      $("upload-errors").textContent = "";
      SS.api("POST", "/api/v1/games", { definition: $("definition").value }).then(function (u) {
        $("upload-errors").textContent = ""; load(); detail(u.id);
      }, showErrors);
    });
    SS.requireLogin(["operator", "supervisor", "auditor"], function (a) { me = a; load(); });
  });
})();
