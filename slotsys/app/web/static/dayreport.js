/* The gaming-day report of a closed day (GET /api/v1/accounting/days/<day>, docs/accounting.md): the facts of
 * the close, the floor / zone / bank / game roll-ups with their totals row, the machines filtered by zone, bank,
 * machine and paged by the API's cursor, the drop and count variances (by state), the liabilities against the
 * ledger, the server's documents (XLSX, PDF, CSV: fetched with the bearer token, saved as files) and the charts
 * (SVG made by the server, shown as object URLs: the page's CSP allows blob: images, nothing from elsewhere).
 * Every column has a catalogue word (drc_<field>); times read SS.when's "2026-12-02 03:50:48 KST". */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var BASE = "/api/v1/accounting/days/";
  var FIGURES = ["games_played", "coin_in", "coin_out", "hold", "hold_pct", "theo_won", "theo_pct", "hold_variance",
    "expected_hold", "sd_hold", "z", "flagged", "jackpot_out", "handpay_out", "handpay_out_count", "bills_in",
    "tickets_in", "tickets_in_count", "tickets_out", "tickets_out_count", "promo_in", "promo_out", "games_won"];
  var KIND = { hold_pct: "pct", theo_pct: "pct", z: "num", flagged: "flag", games_played: "count", games_won: "count",
    handpay_out_count: "count", tickets_in_count: "count", tickets_out_count: "count", machines: "count",
    expected_hold: "won", sd_hold: "won" };
  var state = { day: null, cursors: [], report: null, filters: {}, urls: [] };

  function fmt(col, v) {
    var kind = KIND[col] || (FIGURES.indexOf(col) >= 0 || /^(counted|expected|difference|record|ledger)$/.test(col) ? "won" : "text");
    if (v == null || v === "") return "–";
    if (kind === "flag") return SS.t(v ? "yes" : "no");
    if (kind === "pct") return (v * 100).toFixed(2) + "%";
    if (kind === "num") return Number(v).toFixed(2);
    if (kind === "count") return SS.num(v);
    if (kind === "won") return SS.won(Math.round(v));
    return String(v);
  }
  function head(cols) {
    return SS.el("thead", {}, [SS.el("tr", {}, cols.map(function (c) {
      return SS.el("th", { i18n: c[1], "data-col": c[0], cls: c[2] ? "" : "num" });
    }))]);
  }
  /* A table of rows; cols: [field, catalogue key, is-text]; totals: a row shown last (bold), or null. */
  function table(id, cols, rows, totals, totalLabel) {
    var body = rows.map(function (r) {
      return SS.el("tr", { cls: r.flagged ? "flagged" : "", "data-row": r[cols[0][0]] == null ? "" : String(r[cols[0][0]]) },
        cols.map(function (c) { return SS.el("td", { cls: c[2] ? "" : "num", "data-col": c[0], text: c[3] ? c[3](r) : fmt(c[0], r[c[0]]) }); }));
    });
    if (totals) {
      body.push(SS.el("tr", { cls: "totals" }, cols.map(function (c, i) {
        return SS.el("td", { cls: c[2] ? "" : "num", "data-col": c[0],
          text: i === 0 ? totalLabel : (c[2] ? "" : fmt(c[0], totals[c[0]])) });
      })));
    }
    return SS.el("div", { style: "overflow:auto" }, [SS.el("table", { id: id }, [head(cols), SS.el("tbody", {}, body)])]);
  }
  function figureCols(lead) {
    return lead.concat(FIGURES.map(function (f) { return [f, "drc_" + f]; }));
  }
  function section(key, titleKey, content, extra) {
    return SS.el("section", { cls: "panel", "data-section": key }, [SS.el("h2", { i18n: titleKey })].concat(extra || [], [content]));
  }
  function total(label) { return SS.t("dr_total") + (label ? " · " + label : ""); }

  // ------------------------------------------------------------------ the report
  function query(cursor) {
    var f = state.filters, q = ["limit=" + f.limit];
    ["zone", "bank", "machine"].forEach(function (k) { if (f[k]) q.push(k + "=" + encodeURIComponent(f[k])); });
    if (cursor) q.push("cursor=" + encodeURIComponent(cursor));
    return "?" + q.join("&");
  }
  function chartQuery() {
    var f = state.filters, q = ["lang=" + SS.lang()];
    ["zone", "bank", "machine"].forEach(function (k) { if (f[k]) q.push(k + "=" + encodeURIComponent(f[k])); });
    return "?" + q.join("&");
  }
  function load(cursor) {
    $("day-error").textContent = "";
    SS.api("GET", BASE + state.day + query(cursor)).then(render).catch(function (e) {
      state.report = null;
      ["day-facts", "day-docs", "day-sections", "variances", "liabilities"].forEach(function (id) { $(id).replaceChildren(); });
      ["variances-panel", "liabilities-panel", "charts-panel"].forEach(function (id) { $(id).hidden = true; });
      $("day-error").textContent = SS.problemText(e);
    });
  }
  function options(select, values) {
    var keep = select.value;
    select.replaceChildren.apply(select, [SS.el("option", { value: "", i18n: "dr_all" })].concat(values.map(function (v) {
      return SS.el("option", { value: v, text: v });
    })));
    select.value = values.indexOf(keep) >= 0 ? keep : "";
  }
  function render(r) {
    state.report = r;
    var f = state.filters;
    if (!f.zone && !f.bank && !f.machine) {  // the floor-wide lists give the filters' choices
      options($("f-zone"), r.zones.map(function (z) { return z.zone; }));
      options($("f-bank"), r.banks.map(function (b) { return b.bank; }));
    }
    $("day-facts").replaceChildren(
      SS.el("dt", { i18n: "dr_day" }), SS.el("dd", { id: "day-label", text: r.label }),
      SS.el("dt", { i18n: "dr_closed_by" }), SS.el("dd", { text: r.closed_by + " (" + r.closed_role + "), " + SS.when(r.closed_at) }),
      SS.el("dt", { i18n: "dr_read_at" }), SS.el("dd", { text: SS.when(r.read_at) }),
      SS.el("dt", { i18n: "dr_flag_rule" }), SS.el("dd", { text: "|z| > " + r.k + " · " + SS.t("drc_games_played") + " ≥ " + SS.num(r.min_games) }),
      SS.el("dt", { i18n: "dr_flagged_list" }), SS.el("dd", { id: "flagged-list", text: r.flagged.length ? r.flagged.join(", ") : SS.t("dr_none") }),
      SS.el("dt", { i18n: "dr_ties" }), SS.el("dd", { id: "ties-agree", cls: r.ties.agree ? "ok" : "bad", text: SS.t(r.ties.agree ? "yes" : "no") }),
      SS.el("dt", { i18n: "dr_journal_balanced" }), SS.el("dd", { cls: r.journal.balanced ? "ok" : "bad", text: SS.t(r.journal.balanced ? "yes" : "no") }),
      SS.el("dt", { i18n: "dr_exceptions" }), SS.el("dd", { id: "day-exceptions", text: r.exceptions.length ? r.exceptions.map(function (x) {
        return SS.tv("exc_", x.code) + (x.detail ? " (" + x.detail + ")" : ""); }).join("; ") : SS.t("dr_none") }));
    docs();
    var zoneRow = f.zone ? r.zones[0] : null, bankRow = f.bank ? r.banks[0] : null;
    var machineTotals = f.machine ? null : (bankRow || zoneRow || r.floor);
    var machineLabel = bankRow ? bankRow.bank : (zoneRow ? zoneRow.zone : SS.t("floor"));
    var pageNo = state.cursors.length + 1;
    var pager = SS.el("div", { cls: "pager" }, [
      SS.el("button", { cls: "btn secondary", type: "button", id: "page-prev", i18n: "dr_prev", onclick: prev }),
      SS.el("span", { cls: "muted", id: "page-no", text: " " + SS.t("dr_page") + " " + pageNo + " " }),
      SS.el("button", { cls: "btn secondary", type: "button", id: "page-next", i18n: "dr_next", onclick: function () { next(r.next_cursor); } })]);
    pager.querySelector("#page-prev").disabled = pageNo === 1;
    pager.querySelector("#page-next").disabled = !r.next_cursor;
    $("day-sections").replaceChildren(
      section("floor", "dr_sec_floor", table("t-floor", figureCols([["scope", "floor", true], ["machines", "drc_machines"]]), [], r.floor,
        total(SS.t("floor")))),
      section("zones", "dr_sec_zones", table("t-zones", figureCols([["zone", "drc_zone", true], ["machines", "drc_machines"]]), r.zones,
        f.zone ? null : r.floor, total())),
      section("banks", "dr_sec_banks", table("t-banks", figureCols([["bank", "drc_bank", true], ["machines", "drc_machines"]]), r.banks,
        f.bank ? null : r.floor, total())),
      section("games", "dr_sec_games", table("t-games", figureCols([["game", "drc_game", true], ["machines", "drc_machines"]]), r.games,
        r.floor, total())),
      section("machines", "dr_sec_machines", table("t-machines", figureCols([["asset", "drc_asset", true], ["zone", "drc_zone", true],
        ["bank", "drc_bank", true], ["games", "drc_games", true]]), r.machines, machineTotals, total(machineLabel)), [pager]));
    liabilities(r.liabilities);
    variances();
    charts(r);
  }
  function next(cursor) { if (!cursor) return; state.cursors.push(cursor); load(cursor); }
  function prev() { state.cursors.pop(); load(state.cursors[state.cursors.length - 1]); }

  // ------------------------------------------------------------------ documents
  function download(name, blob) {
    var a = SS.el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(a); a.click(); a.remove();
  }
  function docs() {
    var d = state.day, items = [
      ["xlsx", "dr_xlsx", "export.xlsx", "day_report-" + d + ".xlsx"],
      ["pdf", "dr_pdf", "export.pdf", "day_report-" + d + ".pdf"],
      ["csv", "dr_csv", "export.csv?section=machines", "day_report-" + d + "-machines.csv"],
      ["journal-xlsx", "dr_journal_xlsx", "export.xlsx?document=journal", "journal-" + d + ".xlsx"],
      ["journal-pdf", "dr_journal_pdf", "export.pdf?document=journal", "journal-" + d + ".pdf"]];
    $("day-docs").replaceChildren.apply($("day-docs"), [SS.el("strong", { i18n: "dr_docs" }), " "].concat(items.map(function (it) {
      return SS.el("button", { cls: "btn secondary", type: "button", "data-doc": it[0], i18n: it[1], onclick: function () {
        $("day-error").textContent = "";
        SS.api("GET", BASE + d + "/" + it[2], null, { blob: true }).then(function (b) { download(it[3], b); })
          .catch(function (e) { $("day-error").textContent = SS.problemText(e); });
      } });
    })));
  }

  // ------------------------------------------------------------------ variances and liabilities
  var VCOLS = [["kind", "dr_kind", true, function (r) { return SS.tv("vkind_", r.kind); }], ["subject", "subject", true],
    ["counted", "dr_counted"], ["expected", "dr_expected"], ["difference", "dr_difference"],
    ["state", "col_state", true, function (r) { return SS.tv("vstate_", r.state); }], ["counter", "dr_counter", true],
    ["accepted_by", "dr_accepted_by", true], ["accepted_at", "dr_accepted_at", true, function (r) { return r.accepted_at ? SS.when(r.accepted_at) : "–"; }],
    ["reason", "reason", true]];
  function variances() {
    var s = state.report.variances;
    $("variances-panel").hidden = false;
    $("v-summary").replaceChildren(
      SS.el("dt", { i18n: "dr_open_count" }), SS.el("dd", { id: "v-open", text: SS.num(s.open.length) }),
      SS.el("dt", { i18n: "dr_accepted_count" }), SS.el("dd", { id: "v-accepted", text: SS.num(s.accepted) }),
      SS.el("dt", { i18n: "dr_net_difference" }), SS.el("dd", { text: SS.won(s.net_difference) }));
    var st = $("v-state").value;
    SS.api("GET", "/api/v1/accounting/variances?day=" + state.day + (st ? "&state=" + st : "")).then(function (v) {
      $("variances").replaceChildren(table("t-variances", VCOLS, v.variances, null));
    }).catch(function (e) { $("variances").replaceChildren(SS.el("div", { cls: "error", text: SS.problemText(e) })); });
  }
  function liabilities(l) {
    $("liabilities-panel").hidden = false;
    var cols = [["section", "dr_section", true, function (r) { return SS.tv("lsec_", r.section); }], ["item", "dr_item", true],
      ["account", "dr_account", true], ["record", "dr_record"], ["ledger", "dr_ledger"], ["difference", "dr_difference"]];
    $("liabilities").replaceChildren(
      SS.el("p", { cls: "muted" }, [SS.t("dr_as_of") + ": " + SS.when(l.as_of)]),
      table("t-liabilities", cols, l.lines, l.total, total()));
  }

  // ------------------------------------------------------------------ charts
  /* Show the chart at url in img; an answer to an earlier request for this img (another level, filter or language
   * asked for since) is dropped: data-want is the chart wanted, data-shown the one shown. */
  function chart(img, url) {
    img.removeAttribute("src");
    img.setAttribute("data-want", url);
    img.alt = img.parentNode.querySelector("figcaption").textContent;  // the chart's caption, in the screen's language
    SS.api("GET", url, null, { blob: true }).then(function (b) {
      if (img.getAttribute("data-want") !== url) return;
      var u = URL.createObjectURL(b); state.urls.push(u); img.src = u; img.setAttribute("data-shown", url);
    }).catch(function (e) { if (img.getAttribute("data-want") === url) img.alt = SS.problemText(e); });
  }
  function levels(r) {
    var seen = [];
    ((r.liabilities.jackpots || {}).lines || []).forEach(function (x) { if (x.level && seen.indexOf(x.level) < 0) seen.push(x.level); });
    return seen;
  }
  function charts(r) {
    state.urls.forEach(function (u) { URL.revokeObjectURL(u); }); state.urls = [];
    $("charts-panel").hidden = false;
    var d = BASE + state.day + "/charts/";
    chart($("chart-hold"), d + "hold.svg" + chartQuery());
    chart($("chart-coin-in"), d + "coin-in.svg" + chartQuery());
    var sel = $("chart-level"), lv = levels(r), keep = sel.value;
    sel.replaceChildren.apply(sel, lv.map(function (c) { return SS.el("option", { value: c, text: c }); }));
    if (lv.indexOf(keep) >= 0) sel.value = keep;
    jackpotChart();
  }
  function jackpotChart() {
    if (!$("chart-level").value) return;
    chart($("chart-jackpot"), BASE + state.day + "/charts/jackpot/" + encodeURIComponent($("chart-level").value) + ".svg?lang=" + SS.lang());
  }

  // ------------------------------------------------------------------ start
  function submit(ev) {
    if (ev) ev.preventDefault();
    state.day = $("day").value;
    state.filters = { zone: $("f-zone").value, bank: $("f-bank").value, machine: $("f-machine").value.trim(), limit: $("f-limit").value };
    state.cursors = [];
    if (state.day) load(null);
  }
  function init() {
    // yesterday's gaming day (06:00 KST start, the default of SLOTSYS_GAMING_DAY_START_HOUR / _TZ), or the latest
    // closed day when yesterday's is not closed; the closed days (GET /days, newest first) to pick from
    $("day").value = new Date(Date.now() - 6 * 3600e3 - 864e5).toLocaleDateString("sv-SE", { timeZone: "Asia/Seoul" });
    $("day-form").addEventListener("submit", submit);
    ["f-zone", "f-bank", "f-limit"].forEach(function (id) { $(id).addEventListener("change", submit); });
    $("day-pick").addEventListener("change", function () { if ($("day-pick").value) { $("day").value = $("day-pick").value; submit(); } });
    $("v-state").addEventListener("change", function () { if (state.report) variances(); });
    $("chart-level").addEventListener("change", jackpotChart);
    SS.api("GET", "/api/v1/accounting/days?limit=62").then(function (r) {
      var days = r.days.map(function (d) { return d.day; });
      $("day-pick").replaceChildren.apply($("day-pick"), [SS.el("option", { value: "", text: "–" })].concat(r.days.map(function (d) {
        return SS.el("option", { value: d.day, text: d.day, title: d.label });
      })));
      if (days.length && days.indexOf($("day").value) < 0) $("day").value = days[0];
      $("day-pick").value = days.indexOf($("day").value) >= 0 ? $("day").value : "";
    }).catch(function (e) { $("day-error").textContent = SS.problemText(e); }).then(submit);
  }
  document.addEventListener("slotsys:lang", function () { if (state.report) render(state.report); });
  window.SSDayReport = { init: init };
})();
