// relaybay board: sidebar and drawer (§2 Navigation), and the live connection to /events
// (§2 Live updates). No inline scripts anywhere (the CSP has no 'unsafe-inline'); htmx runs
// without eval, so project filtering of live events happens here, not in hx-trigger filters:
// every event is re-dispatched on <body> as `rb-<kind>` (dots become dashes) and `rb-event`,
// and, when it belongs to the page's project (body[data-project]), as `rbp-<kind>` and
// `rbp-event`. Fragments listen with hx-trigger="rbp-task-updated from:body".
// URLs come from <body>'s data-*-url attributes, which base.html fills with {% url %}:
// no internal path is written here.
(function () {
  "use strict";

  var root = document.documentElement;
  var body = document.body;
  var NARROW = window.matchMedia("(max-width: 759px)");
  var STORE_KEY = "relaybay.sidebar";

  // --- sidebar (wide) and drawer (narrow) -------------------------------------------
  var toggle = document.getElementById("nav-toggle");
  var sidebar = document.getElementById("sidebar");
  var scrim = document.querySelector("[data-scrim]");

  function storeSidebar(value) {
    try { window.localStorage.setItem(STORE_KEY, value); } catch (e) { /* storage off */ }
  }
  function storedHidden() {
    try { return window.localStorage.getItem(STORE_KEY) === "hidden"; } catch (e) { return false; }
  }
  function drawerOpen() { return root.classList.contains("nav-open"); }
  function setExpanded(expanded) {
    if (toggle) { toggle.setAttribute("aria-expanded", String(expanded)); }
  }

  function openDrawer() {
    root.classList.add("nav-open");
    if (scrim) { scrim.hidden = false; }
    setExpanded(true);
    if (sidebar) {
      // Start where the reader is: the current item, else the first one.
      var first = sidebar.querySelector('[aria-current="page"]') || sidebar.querySelector("a, summary");
      if (first) { first.focus(); }
    }
  }
  // The drawer traps nothing; closing it hands the focus back to the button when the
  // focus was inside the drawer (or nowhere), so keyboard users do not lose their place.
  function closeDrawer(returnFocus) {
    if (!drawerOpen()) { return; }
    var active = document.activeElement;
    root.classList.remove("nav-open");
    if (scrim) { scrim.hidden = true; }
    setExpanded(false);
    var focusWasInside = !active || active === body || (sidebar && sidebar.contains(active));
    if (returnFocus && focusWasInside && toggle) { toggle.focus(); }
  }
  function applyWide() {
    var hidden = storedHidden();
    root.classList.toggle("nav-collapsed", hidden);
    setExpanded(!hidden);
  }
  function applyLayout() {
    closeDrawer(false);
    if (NARROW.matches) {
      setExpanded(false);
    } else {
      applyWide();
    }
  }

  if (toggle) {
    toggle.addEventListener("click", function () {
      if (NARROW.matches) {
        if (drawerOpen()) { closeDrawer(true); } else { openDrawer(); }
      } else {
        storeSidebar(root.classList.contains("nav-collapsed") ? "shown" : "hidden");
        applyWide();
      }
    });
  }
  if (scrim) { scrim.addEventListener("click", function () { closeDrawer(true); }); }
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && drawerOpen()) {
      e.preventDefault();
      closeDrawer(true);
    }
  });
  document.addEventListener("click", function (e) {
    if (!drawerOpen()) { return; }
    if (sidebar && sidebar.contains(e.target)) {
      if (e.target.closest("a[href]")) { closeDrawer(false); }  // following a link
      return;
    }
    if (toggle && toggle.contains(e.target)) { return; }
    closeDrawer(true);  // a click outside (header, scrim)
  });
  // Tabbing out of the open drawer closes it instead of leaving it over the page.
  document.addEventListener("focusin", function (e) {
    if (!drawerOpen()) { return; }
    if ((sidebar && sidebar.contains(e.target)) || (toggle && toggle.contains(e.target))) { return; }
    closeDrawer(false);
  });
  NARROW.addEventListener("change", applyLayout);
  applyLayout();

  // --- live connection --------------------------------------------------------------
  var status = document.getElementById("live-status");
  var statusLabel = status && status.querySelector(".label");
  var project = body.getAttribute("data-project") || "";
  var source = null;
  // Start from the newest event the server knew when it rendered the page, so an event
  // between rendering and connecting is replayed instead of lost.
  var lastId = body.getAttribute("data-live-since") || null;
  var retryTimer = null;
  var retryDelay = 1000;
  var attempt = 0;  // one per connect(): a probe answers only for its own attempt
  var PROBE_TIMEOUT = 5000;
  var KINDS = (document.querySelector('meta[name="relaybay-event-kinds"]') || {}).content;
  KINDS = KINDS ? KINDS.split(" ") : [];
  var TITLES = {
    connecting: "Live updates: connecting…",
    live: "Live updates: on",
    offline: "Live updates: offline, retrying",
  };

  function setState(state) {
    if (!status || status.getAttribute("data-state") === state) { return; }
    status.setAttribute("data-state", state);
    status.title = TITLES[state] || state;
    if (statusLabel) { statusLabel.textContent = state; }
  }

  // The refresh table (tasks/live_refresh.py, rendered by {% live_table %}): which event kinds
  // concern which fragment. The other scripts ask relaybayLive.concerns(name, kind).
  var table = {};
  try {
    table = JSON.parse(document.querySelector('meta[name="relaybay-live-table"]').content) || {};
  } catch (err) { table = {}; }
  window.relaybayLive = {
    concerns: function (name, kind) { return (table[name] || []).indexOf(kind) >= 0; },
  };

  function dispatch(kind, data) {
    var name = kind.replace(/\./g, "-");
    body.dispatchEvent(new CustomEvent("rb-" + name, { detail: data }));
    body.dispatchEvent(new CustomEvent("rb-event", { detail: data }));
    if (project && data && data.project === project) {
      body.dispatchEvent(new CustomEvent("rbp-" + name, { detail: data }));
      body.dispatchEvent(new CustomEvent("rbp-event", { detail: data }));
    }
  }

  function onMessage(e) {
    if (e.lastEventId) { lastId = e.lastEventId; }
    var data = {};
    try { data = JSON.parse(e.data); } catch (err) { data = {}; }
    dispatch(e.type, data);
  }

  function scheduleRetry() {
    if (retryTimer) { return; }
    retryTimer = setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
  }

  // Python's quote(s, safe="/"): what BoardAuthMiddleware puts after /login?next=.
  function quotePath(s) {
    return encodeURIComponent(s).replace(/%2F/g, "/").replace(/[!'()*]/g, function (c) {
      return "%" + c.charCodeAt(0).toString(16).toUpperCase();
    });
  }

  // The same target the server's redirect for a signed-out GET of this page names: the
  // decoded path (Django's request.path) plus the raw query string, quoted once.
  function signInUrl() {
    var path = window.location.pathname;
    try { path = decodeURIComponent(path); } catch (e) { /* keep it as it is */ }
    return body.getAttribute("data-login-url") + "?next=" + quotePath(path + window.location.search);
  }

  // An EventSource cannot see the HTTP status of a failed connection. After a token
  // rotation and restart the reason is a cookie that no longer signs in, so ask a tiny
  // authenticated URL once per failed attempt: 204 → signed in (the server was away),
  // a redirect (to /login) or 401 → signed out, no answer → the server is down.
  // Calls back with true, false, or null when it cannot tell.
  function probeSignedIn(done) {
    var controller = window.AbortController ? new AbortController() : null;
    var timer = controller ? setTimeout(function () { controller.abort(); }, PROBE_TIMEOUT) : null;
    var settle = function (answer) { if (timer) { clearTimeout(timer); } done(answer); };
    fetch(body.getAttribute("data-session-check-url"), {
      method: "GET",
      credentials: "same-origin",
      cache: "no-store",
      redirect: "manual",
      signal: controller ? controller.signal : undefined,
    }).then(function (response) {
      if (response.type === "opaqueredirect" || response.status === 401) {
        settle(false);
      } else {
        settle(response.ok ? true : null);
      }
    }, function () { settle(null); });
  }

  function failed(thisAttempt) {
    setState("offline");
    probeSignedIn(function (signedIn) {
      if (signedIn === false) {
        window.location.replace(signInUrl());
        return;
      }
      // A reconnect started meanwhile (wake-up, online, pageshow) owns the retry now.
      if (thisAttempt !== attempt || source) { return; }
      scheduleRetry();
    });
  }

  // A reconnect keeps the current state on screen until it succeeds ("live") or fails
  // ("offline"): no flicker through "connecting" on every retry or wake-up.
  function connect() {
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    if (source) { source.close(); source = null; }
    var url = body.getAttribute("data-events-url") +
      (lastId ? "?last_event_id=" + encodeURIComponent(lastId) : "");
    var es = new EventSource(url);
    var thisAttempt = ++attempt;
    source = es;
    es.onopen = function () { retryDelay = 1000; setState("live"); };
    es.onerror = function () {
      // Reconnect ourselves so the replay asks from the last id we saw (a fresh
      // EventSource sends no Last-Event-ID header); first find out whether we are
      // still signed in.
      es.close();
      if (source !== es) { return; }
      source = null;
      failed(thisAttempt);
    };
    es.addEventListener("resync", function () { window.location.reload(); });
    KINDS.forEach(function (kind) { es.addEventListener(kind, onMessage); });
  }

  // Waking from sleep or coming back online forces a reconnect (§2 Live updates).
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { retryDelay = 1000; connect(); }
  });
  window.addEventListener("online", function () { retryDelay = 1000; connect(); });
  window.addEventListener("offline", function () { setState("offline"); });
  window.addEventListener("pageshow", function (e) { if (e.persisted) { connect(); } });
  window.relaybay = {
    reconnect: connect,
    state: function () { return status && status.getAttribute("data-state"); },
  };
  connect();
})();
