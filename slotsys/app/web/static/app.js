/* slotsys screens: shared helpers (no dependencies).
 * Auth: POST /api/v1/auth/login → bearer token kept in sessionStorage (per tab, gone when the tab
 * closes); every API call sends it as Authorization: Bearer. It is never put in a URL.
 * i18n: [data-i18n] elements get their text from DICT in the chosen language (localStorage). */
(function () {
  "use strict";
  var AUTH_KEY = "slotsys.auth";
  var LANG_KEY = "slotsys.lang";

  var DICT = {
    login: ["Log in", "로그인"], logout: ["Log out", "로그아웃"], username: ["Username", "사용자 이름"],
    password: ["Password", "비밀번호"], login_needed: ["Log in as", "로그인 필요:"],
    wrong_role: ["This screen needs the role", "이 화면에 필요한 역할:"],
    home: ["Screens", "화면"], floor: ["Floor", "플로어"], fa_title: ["Floor administration", "플로어 관리"], jackpots: ["Jackpots", "잭팟"],
    parsheets: ["Par sheets", "파 시트"], cashier: ["Cashier", "캐셔"], kiosk: ["Kiosk", "키오스크"],
    signage: ["Signage", "사이니지"], reports: ["Reports", "보고서"],
    games_nav: ["Games", "게임"], staff_nav: ["Staff", "직원"], audit_nav: ["Audit log", "감사 로그"],
    // floor
    state_idle: ["Idle", "대기"], state_in_play: ["In play", "게임 중"], state_carded: ["Carded", "카드 삽입"],
    state_handpay: ["Handpay", "핸드페이"], state_locked: ["Locked", "잠김"], state_offline: ["Offline", "오프라인"],
    credits: ["Credits", "크레딧"], coin_in_today: ["Coin-in today", "오늘 코인인"], hold_today: ["Hold today", "오늘 홀드"],
    machines: ["Machines", "머신"], zone: ["Zone", "구역"], bank: ["Bank", "뱅크"], updated: ["Updated", "갱신"],
    games_today: ["Games today", "오늘 게임 수"], jackpot_today: ["Jackpots today", "오늘 잭팟"],
    meters: ["Meters", "미터"], last_games: ["Last 10 games", "최근 10게임"], game: ["Game", "게임"],
    bet: ["Bet", "베팅"], win: ["Win", "당첨"], no_games: ["No games played yet", "아직 게임 기록이 없습니다"],
    back_floor: ["← Floor", "← 플로어"], status: ["Status", "상태"], denomination: ["Denomination", "크레딧 단위"],
    // jackpots
    level: ["Level", "레벨"], value: ["Value", "현재 금액"], reset: ["Reset", "리셋"], ceiling: ["Ceiling", "상한"],
    rate: ["Rate (ppm)", "적립률 (ppm)"], min_bet: ["Min bet", "최소 베팅"], pending: ["Pending (after next hit)", "대기 중 (다음 당첨 후 적용)"],
    pause: ["Pause", "일시정지"], resume: ["Resume", "재개"], edit: ["Edit", "수정"], save: ["Save", "저장"],
    cancel: ["Cancel", "취소"], reason: ["Reason", "사유"], hit_history: ["Hit history", "당첨 기록"],
    machine: ["Machine", "머신"], amount: ["Amount", "금액"], time: ["Time", "시간"], name: ["Name", "이름"],
    paused: ["paused", "일시정지"], active: ["active", "활성"], edit_note: ["Parameters take effect after the level's next hit; the name changes now.",
      "파라미터는 다음 당첨 후 적용되며, 이름은 즉시 변경됩니다."], live: ["live", "실시간"],
    // cashier
    drawer: ["Drawer", "서랍"], open_drawer: ["Open drawer", "서랍 열기"], opening_float: ["Opening float", "시작 시재"],
    expected_cash: ["Expected cash", "예상 현금"], tickets_paid: ["Tickets paid", "지급 티켓"], close_drawer: ["Close drawer (count)", "서랍 마감 (현금 계수)"],
    counted_cash: ["Counted cash", "계수 현금"], variance: ["Variance", "차액"], scan: ["Scan or type a ticket, then Enter", "티켓을 스캔하거나 번호를 입력 후 Enter"],
    pay: ["Pay", "지급"], paid: ["Paid", "지급 완료"], print_receipt: ["Print receipt", "영수증 인쇄"], payable: ["Payable", "지급 가능"],
    not_payable: ["Cannot be paid", "지급 불가"], issued_by: ["Issued by", "발행처"], issued_at: ["Issued", "발행 시각"],
    expires_at: ["Expires", "만료"], type: ["Type", "종류"], number: ["Validation number", "검증 번호"],
    redeemed_at: ["Redeemed", "지급 시각"], redeemed_where: ["Where", "지급 장소"], no_drawer: ["No open drawer session", "열린 서랍 세션이 없습니다"],
    closed: ["Drawer closed", "서랍 마감됨"], session: ["Session", "세션"],
    // kiosk
    kiosk_prompt: ["Insert or scan your ticket", "티켓을 넣거나 스캔하세요"], take_cash: ["Please take your cash", "현금을 받아 가세요"],
    dispensed: ["Dispensed", "지급 금액"], cassette: ["Cassette", "카세트"],
    // reports
    outstanding: ["Ticket liability", "미지급 티켓 부채"], expired: ["Expired tickets", "만료 티켓"], voided: ["Voided tickets", "무효 티켓"],
    jackpot_hits: ["Jackpot hits", "잭팟 당첨"], machine_meters: ["Machine meters", "머신 미터"], from: ["From", "시작일"], to: ["To", "종료일"],
    load: ["Load", "조회"], csv: ["Export CSV", "CSV 내보내기"], rows: ["rows", "행"], total: ["Total", "합계"],
    // signage
    jackpot: ["JACKPOT", "잭팟"], connecting: ["connecting…", "연결 중…"], reconnecting: ["connection lost, reconnecting…", "연결 끊김, 재연결 중…"],
    signed_out: ["signed out", "로그아웃됨"],
    connected: ["live", "실시간"], congrats: ["Congratulations!", "축하합니다!"],
    variation: ["Variation", "버전"], rtp_full: ["RTP at full bet", "최대 베팅 RTP"], min_rtp: ["Lowest RTP", "최저 RTP"],
    hit_freq: ["Hit frequency (any win incl. scatter pays and feature triggers)", "당첨 빈도 (스캐터·피처 포함)"],
    line_hit_freq: ["Line/way hit frequency (base-game line or way wins only)", "라인/웨이 당첨 빈도 (기본 게임 라인·웨이 당첨만)"], option: ["Bet option", "베팅 옵션"], top_award: ["Top award", "최고 당첨"],
    award: ["Award", "당첨"], cycle: ["1 in", "확률 1/"], probability: ["Probability", "확률"],
    // alerts, handpays, machine events
    alerts: ["Alerts", "알림"], handpays: ["Handpays", "핸드페이"], opened: ["Opened", "발생"], kind: ["Event", "이벤트"],
    severity: ["Severity", "심각도"], state: ["State", "상태"], who: ["Who", "담당"], security: ["SECURITY", "보안"],
    acknowledge: ["Acknowledge", "확인"], dispatch: ["Dispatch", "출동"], resolve: ["Resolve", "해결"],
    alert_open: ["open", "미확인"], alert_acknowledged: ["acknowledged", "확인됨"], alert_dispatched: ["dispatched", "출동"],
    alert_resolved: ["resolved", "해결됨"], no_alerts: ["No active alerts", "처리할 알림이 없습니다"],
    sev_info: ["info", "정보"], sev_warning: ["warning", "경고"], sev_critical: ["critical", "긴급"],
    source: ["Source", "구분"], signers: ["Signatures", "서명"], sign: ["Sign", "서명"], sign_pay: ["Sign and pay", "서명 후 지급"],
    hp_pending: ["pending", "대기"], hp_paid: ["paid", "지급 완료"], hp_cancelled: ["cancelled", "취소"],
    hp_jackpot: ["Jackpot", "잭팟"], hp_cancelled_credit: ["Cancelled credits", "취소 크레딧"],
    two_person: ["Two signatures (attendant, then a different supervisor) at or above", "2인 서명 필요 (어텐던트 후 다른 수퍼바이저) 기준:"],
    no_handpays: ["No handpays waiting", "대기 중인 핸드페이가 없습니다"], events: ["Event log", "이벤트 기록"],
    link: ["Link", "통신"], online: ["online", "온라인"], offline: ["offline", "오프라인"], last_heard: ["Last heard", "마지막 수신"],
    no_events: ["No events yet", "이벤트가 없습니다"],
    m_coin_in: ["Coin-in", "코인인"], m_coin_out: ["Coin-out (game wins)", "코인아웃 (게임 당첨)"],
    m_jackpot_out: ["Jackpots paid", "잭팟 지급"], m_games_played: ["Games played", "게임 수"],
    m_games_won: ["Games won", "당첨 게임 수"], m_bills_in: ["Bills in", "지폐 투입"], m_tickets_in: ["Tickets in", "티켓 투입"],
    m_tickets_in_count: ["Tickets in (count)", "티켓 투입 (매수)"], m_tickets_out: ["Tickets out", "티켓 발행"],
    m_tickets_out_count: ["Tickets out (count)", "티켓 발행 (매수)"], m_game_number: ["Last game number", "마지막 게임 번호"],
    m_cashable_coin_in: ["Cashable coin-in", "현금성 코인인"], m_restricted_coin_in: ["Restricted promo coin-in", "제한 프로모션 코인인"],
    m_nonrestricted_coin_in: ["Non-restricted promo coin-in", "비제한 프로모션 코인인"],
    m_handpay_out: ["Handpays (cancelled credits)", "핸드페이 (취소 크레딧)"], m_handpay_out_count: ["Handpays (count)", "핸드페이 (건수)"]
  };

  function lang() { return localStorage.getItem(LANG_KEY) === "ko" ? "ko" : "en"; }
  function t(key) { var e = DICT[key]; return e ? e[lang() === "ko" ? 1 : 0] : key; }
  function apply(root) {
    (root || document).querySelectorAll("[data-i18n]").forEach(function (el) { el.textContent = t(el.getAttribute("data-i18n")); });
    (root || document).querySelectorAll("[data-i18n-ph]").forEach(function (el) { el.placeholder = t(el.getAttribute("data-i18n-ph")); });
    document.documentElement.lang = lang();
  }
  function setLang(l) { localStorage.setItem(LANG_KEY, l); apply(); document.dispatchEvent(new Event("slotsys:lang")); }

  var WON = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  function won(n) { return (n == null || isNaN(n)) ? "–" : (n < 0 ? "-₩" : "₩") + WON.format(Math.abs(n)); }
  function num(n) { return n == null ? "–" : WON.format(n); }
  function when(iso) {
    if (!iso) return "–";
    var d = new Date(iso);
    return isNaN(d) ? iso : d.toLocaleString(lang() === "ko" ? "ko-KR" : "en-GB", { timeZone: "Asia/Seoul", hour12: false }) + " KST";
  }

  function auth() { try { return JSON.parse(sessionStorage.getItem(AUTH_KEY)) || null; } catch (e) { return null; } }
  function uuid() {
    var b = new Uint8Array(16); crypto.getRandomValues(b); b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function ApiError(status, problem) { this.status = status; this.problem = problem || {}; this.message = (problem && (problem.detail || problem.title)) || ("HTTP " + status); }

  /* api(method, path, body, opts) → Promise of the JSON body; rejects with ApiError (problem+json).
   * opts.idem: send a fresh Idempotency-Key (money-moving POSTs); opts.blob: resolve with a Blob. */
  function api(method, path, body, opts) {
    opts = opts || {};
    var a = auth(), headers = {};
    if (a) headers.Authorization = "Bearer " + a.token;
    if (body !== undefined && body !== null) headers["Content-Type"] = "application/json";
    if (opts.idem) headers["Idempotency-Key"] = typeof opts.idem === "string" ? opts.idem : uuid();
    return fetch(path, { method: method, headers: headers, body: body == null ? undefined : JSON.stringify(body), cache: "no-store" })
      .then(function (r) {
        if (r.status === 401 && a && path.indexOf("/auth/login") < 0) { sessionStorage.removeItem(AUTH_KEY); showLogin(); }
        if (opts.blob && r.ok) return r.blob();
        return r.text().then(function (txt) {
          var data = null; try { data = txt ? JSON.parse(txt) : null; } catch (e) { data = { detail: txt }; }
          if (!r.ok) throw new ApiError(r.status, data);
          return data;
        });
      });
  }

  var required = null, onReady = null;
  function hasRole(a) { return a && (!required || required.indexOf(a.role) >= 0 || a.role === "admin"); }
  function showLogin(msg) {
    var box = document.getElementById("login");
    if (!box) return;
    box.hidden = false;
    document.getElementById("login-roles").textContent = required ? required.join(" / ") : "staff";
    document.getElementById("login-error").textContent = msg || "";
    document.getElementById("login-username").focus();
  }
  function renderUser() {
    var a = auth(), el = document.getElementById("who");
    if (el) el.textContent = a ? a.username + " (" + a.role + ")" : "";
    var out = document.getElementById("logout"); if (out) out.hidden = !a;
  }
  /* requireLogin(["cashier"], fn): run fn() once a staff member with one of the roles is logged in. */
  function requireLogin(roles, fn) {
    required = roles; onReady = fn;
    var a = auth();
    renderUser();
    if (hasRole(a)) { fn(a); } else { showLogin(a ? t("wrong_role") + " " + roles.join(" / ") : ""); }
  }
  function login(username, password) {
    return api("POST", "/api/v1/auth/login", { username: username, password: password }).then(function (r) {
      sessionStorage.setItem(AUTH_KEY, JSON.stringify(r));
      return r;
    });
  }

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k]; else if (k === "i18n") { e.setAttribute("data-i18n", attrs[k]); e.textContent = t(attrs[k]); }
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]); else if (k === "cls") e.className = attrs[k];
      else if (k === "style") e.style.cssText = attrs[k];  // CSSOM, not a style attribute: allowed by the pages' CSP
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function problemText(err) {
    if (!(err instanceof ApiError)) return String(err && err.message || err);
    var p = err.problem; return (p.title ? p.title + ": " : "") + (p.detail || "") + (p.field ? " [" + p.field + "]" : "");
  }

  document.addEventListener("DOMContentLoaded", function () {
    apply();
    var form = document.getElementById("login-form");
    if (form) form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      login(document.getElementById("login-username").value.trim(), document.getElementById("login-password").value)
        .then(function (a) {
          document.getElementById("login-password").value = "";
          if (!hasRole(a)) { showLogin(t("wrong_role") + " " + required.join(" / ")); return; }
          document.getElementById("login").hidden = true; renderUser(); if (onReady) onReady(a);
        })
        .catch(function (e) { showLogin(problemText(e)); });
    });
    var out = document.getElementById("logout");
    if (out) out.addEventListener("click", function () {  /* revoke the token on the server too (docs/staff-auth.md) */
      var done = function () { sessionStorage.removeItem(AUTH_KEY); location.reload(); };
      api("POST", "/api/v1/auth/logout").then(done, done);
    });
    document.querySelectorAll("[data-lang]").forEach(function (b) { b.addEventListener("click", function () { setLang(b.getAttribute("data-lang")); }); });
  });

  /* Why a ticket cannot be paid, in English and Korean, by refusal reason or problem code. */
  var REFUSALS = {
    already_redeemed: ["Ticket already redeemed", "이미 지급된 티켓입니다"],
    voided: ["Ticket voided", "무효 처리된 티켓입니다"],
    pending_elsewhere: ["Ticket in process at another location", "다른 곳에서 처리 중인 티켓입니다"],
    expired: ["Ticket expired", "만료된 티켓입니다"],
    promotional_at_cage: ["Promotional ticket: not cashable, play it on a machine", "프로모션 티켓은 현금으로 바꿀 수 없습니다. 머신에서 사용하세요"],
    not_accepted_here: ["This ticket type is not accepted here", "이 종류의 티켓은 여기서 받을 수 없습니다"],
    zero_amount: ["Ticket amount is zero", "티켓 금액이 0원입니다"],
    amount_mismatch: ["Amount differs from the one on file", "등록된 금액과 다릅니다"],
    "ticket-not-on-file": ["Ticket not on file", "등록되지 않은 티켓입니다"],
    "check-digit-wrong": ["Number mistyped (check digit wrong): please re-enter", "번호가 잘못 입력되었습니다 (검증 숫자 오류). 다시 입력하세요"],
    "validation-failed": ["Not a ticket number", "티켓 번호가 아닙니다"],
    "too-many-unknown-tickets": ["Too many unknown tickets: please see the cashier", "확인되지 않은 티켓이 너무 많습니다. 캐셔에게 문의하세요"],
    "insufficient-funds": ["This terminal cannot pay this amount: please see the cashier", "이 단말기에서 지급할 수 없는 금액입니다. 캐셔에게 문의하세요"],
    "no-open-drawer-session": ["Open a drawer session first", "먼저 서랍 세션을 여세요"]
  };
  function problemCode(p) { return p && p.type ? String(p.type).split("/").pop() : ""; }
  /* [english, korean] for a refusal object ({reason}) or a problem body ({type, reason}). */
  function refusal(p) {
    var key = (p && p.reason && REFUSALS[p.reason]) ? p.reason : (p && p.code) || problemCode(p);
    return REFUSALS[key] || [(p && (p.title || p.detail)) || "Refused", "처리할 수 없습니다"];
  }

  window.SS = { t: t, apply: apply, lang: lang, setLang: setLang, won: won, num: num, when: when, api: api, auth: auth,
    uuid: uuid, refusal: refusal, problemCode: problemCode, requireLogin: requireLogin, el: el, problemText: problemText, ApiError: ApiError, DICT: DICT };
})();
