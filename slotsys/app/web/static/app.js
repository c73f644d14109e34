/* slotsys screens: shared helpers (no dependencies).
 * Auth: POST /api/v1/auth/login → bearer token kept in sessionStorage (per tab, gone when the tab
 * closes); every API call sends it as Authorization: Bearer. It is never put in a URL.
 * i18n: [data-i18n] elements get their text from the message catalogue (#ss-messages) in the chosen language
 * (localStorage); API calls ask for it with Accept-Language. */
(function () {
  "use strict";
  var AUTH_KEY = "slotsys.auth";
  var LANG_KEY = "slotsys.lang";

  /* The words of every screen in every language: the message catalogue (slotsys/locale/<lang>/LC_MESSAGES/slotsys.po,
   * keys and English in slotsys/app/web/messages.py), rendered into each page as the JSON data block #ss-messages. */
  var CATALOGUE = (function () {
    var node = document.getElementById("ss-messages");
    try { return JSON.parse(node.textContent); } catch (e) { return { languages: ["en"], messages: {}, refusals: {} }; }
  })();
  var DICT = CATALOGUE.messages || {};

  function lang() { var l = localStorage.getItem(LANG_KEY); return (CATALOGUE.languages || []).indexOf(l) > 0 ? l : "en"; }
  function pick(e, l) { return e[l || lang()] || e.en; }
  function t(key) { var e = DICT[key]; return e ? pick(e) : key; }
  /* "English / 한국어" of a key (the kiosk and the printed receipt are bilingual); tvBoth likewise for a code. */
  function both(key) { var e = DICT[key]; return e ? pick(e, "en") + " / " + pick(e, "ko") : key; }
  function tvBoth(prefix, value) { return value != null && DICT[prefix + value] ? both(prefix + value) : (value == null ? "" : String(value)); }
  function has(key) { return Object.prototype.hasOwnProperty.call(DICT, key); }
  /* t(prefix + value) when the catalogue has it (a state, a status, a meter), else the value as the API sent it. */
  function tv(prefix, value) { return value != null && has(prefix + value) ? t(prefix + value) : (value == null ? "" : String(value)); }
  function apply(root) {
    // data-i18n-lang: the word in that language whatever the screen's (the kiosk and the receipt speak both)
    (root || document).querySelectorAll("[data-i18n]").forEach(function (el) {
      var fixed = el.getAttribute("data-i18n-lang"), e = DICT[el.getAttribute("data-i18n")];
      el.textContent = fixed && e ? pick(e, fixed) : t(el.getAttribute("data-i18n"));
    });
    (root || document).querySelectorAll("[data-i18n-ph]").forEach(function (el) { el.placeholder = t(el.getAttribute("data-i18n-ph")); });
    document.documentElement.lang = lang();
  }
  function setLang(l) { localStorage.setItem(LANG_KEY, l); apply(); document.dispatchEvent(new Event("slotsys:lang")); }

  var WON = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
  function won(n) { return (n == null || isNaN(n)) ? "–" : (n < 0 ? "-₩" : "₩") + WON.format(Math.abs(n)); }
  function num(n) { return n == null ? "–" : WON.format(n); }
  /* THE display format of a date-time, in every language: "2026-12-02 03:50:48 KST" (slotsys/kernel/gaming_day.py,
   * GamingDay.format), in the casino's time zone (the gaming day's, SLOTSYS_GAMING_DAY_TZ: <html data-tz>). The
   * zone's abbreviation is the browser's short name, KST for Asia/Seoul (which browsers call GMT+9). */
  var TZ = document.documentElement.getAttribute("data-tz") || "Asia/Seoul";
  var WHEN;
  try {
    WHEN = new Intl.DateTimeFormat("en-US", { timeZone: TZ, hourCycle: "h23", year: "numeric", month: "2-digit",
      day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
  } catch (e) {  // a zone this browser does not know: Seoul, as the server's default
    TZ = "Asia/Seoul";
    WHEN = new Intl.DateTimeFormat("en-US", { timeZone: TZ, hourCycle: "h23", year: "numeric", month: "2-digit",
      day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
  }
  function when(iso) {
    if (!iso) return "–";
    var d = new Date(iso);
    if (isNaN(d)) return iso;
    var p = {}; WHEN.formatToParts(d).forEach(function (x) { p[x.type] = x.value; });
    var zone = TZ === "Asia/Seoul" ? "KST" : p.timeZoneName;
    return p.year + "-" + p.month + "-" + p.day + " " + p.hour + ":" + p.minute + ":" + p.second + " " + zone;
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
    var a = auth(), headers = { "Accept-Language": lang() };  // problem titles come back in the screen's language
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

  /* Why a ticket cannot be paid, by refusal reason or problem code: the catalogue's "refusals". */
  var REFUSALS = CATALOGUE.refusals || {};
  function problemCode(p) { return p && p.type ? String(p.type).split("/").pop() : ""; }
  /* [english, korean] for a refusal object ({reason}) or a problem body ({type, reason}) (the kiosk shows both);
   * refusalText(p): the one in the screen's language. */
  function refusalKey(p) { return (p && p.reason && REFUSALS[p.reason]) ? p.reason : (p && p.code) || problemCode(p); }
  function knownRefusal(p) { return Object.prototype.hasOwnProperty.call(REFUSALS, refusalKey(p)); }
  function refusal(p) {
    var e = knownRefusal(p) ? REFUSALS[refusalKey(p)] : null;
    if (e) return [pick(e, "en"), pick(e, "ko")];
    var r = DICT.refused || { en: "Refused" };
    return [(p && (p.title || p.detail)) || pick(r, "en"), pick(r, "ko")];
  }
  /* A zone's name in the screen's language: the catalogue's word for a zone as seeded (zone_<code>), the name as
   * entered otherwise (an operator's own name for a zone is shown as they wrote it). */
  function zoneName(code, name) { var e = DICT["zone_" + code]; return e && e.en === name ? pick(e) : name; }
  function refusalText(p) { var w = refusal(p); return lang() === "ko" ? w[1] : w[0]; }

  window.SS = { t: t, has: has, tv: tv, both: both, tvBoth: tvBoth, refusalText: refusalText, knownRefusal: knownRefusal, zoneName: zoneName, apply: apply, lang: lang, setLang: setLang, won: won, num: num, when: when, api: api, auth: auth,
    uuid: uuid, refusal: refusal, problemCode: problemCode, requireLogin: requireLogin, el: el, problemText: problemText, ApiError: ApiError, DICT: DICT };
})();
