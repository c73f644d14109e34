/* Live jackpot stream for browsers. EventSource cannot send an Authorization header, so we first
 * trade the bearer token (POST, header) for a 60-second stream token and open
 * /api/v1/screens/jackpot-stream?token=… with it. On any error, or 6 s without an event (the server
 * sends a meters snapshot every 2 s of silence), the connection is closed and reopened with a fresh
 * token after a back-off (1, 2, 4 … 10 s); the first event of every connection is a full snapshot,
 * so the values recover by themselves. A final `event: end` with reason "revoked" (the signed-in user
 * logged out, changed password or was deactivated: docs/streams.md) stops it for good: the sign shows
 * "signed out" and the sign-in form (through the 401 the dead token now gets), never a reconnect loop. */
(function () {
  "use strict";
  SS.jackpotStream = function (handlers) {
    var es = null, backoff = 1000, lastEvent = 0, timer = null, stopped = false;
    function state(s) { if (handlers.onState) handlers.onState(s); }
    function schedule() {
      if (stopped) return;
      if (es) { es.close(); es = null; }
      state("reconnecting");
      clearTimeout(timer);
      timer = setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 10000);
    }
    function seen() { lastEvent = Date.now(); }
    function connect() {
      SS.api("POST", "/api/v1/screens/stream-token").then(function (r) {
        if (stopped) return;
        es = new EventSource(r.stream_url);
        seen();
        es.onopen = function () { backoff = 1000; seen(); state("connected"); };
        es.addEventListener("meters", function (ev) { seen(); state("connected"); if (handlers.onMeters) handlers.onMeters(JSON.parse(ev.data)); });
        es.addEventListener("hit", function (ev) { seen(); if (handlers.onHit) handlers.onHit(JSON.parse(ev.data)); });
        es.addEventListener("alert", function (ev) { seen(); if (handlers.onAlert) handlers.onAlert(JSON.parse(ev.data)); });
        es.addEventListener("end", function (ev) {
          var d = {}; try { d = JSON.parse(ev.data); } catch (e) { /* not JSON: treat as a plain end */ }
          if (d.reason !== "revoked") { schedule(); return; }
          stopped = true; clearTimeout(timer); es.close(); es = null; state("signed_out");
          SS.api("POST", "/api/v1/screens/stream-token").catch(function () {});  // its 401 shows the sign-in form
        });
        es.onerror = function () { schedule(); };
      }).catch(function () { schedule(); });
    }
    setInterval(function () { if (es && Date.now() - lastEvent > 6000) { if (handlers.onStale) handlers.onStale(); schedule(); } }, 1000);
    state("connecting");
    connect();
    return { close: function () { stopped = true; if (es) es.close(); } };
  };
})();
