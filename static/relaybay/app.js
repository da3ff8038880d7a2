// relaybay board: sidebar and drawer, and the live connection to /events.
// No inline scripts anywhere (the CSP has no 'unsafe-inline'); htmx runs without eval,
// so project filtering of live events happens here, not in hx-trigger filters.
(function () {
  "use strict";

  var body = document.body;
  var NARROW = window.matchMedia("(max-width: 759px)");
  var STORE_KEY = "relaybay.sidebar";

  // --- sidebar (wide) and drawer (narrow) -------------------------------------------
  function storedSidebar() {
    try { return window.localStorage.getItem(STORE_KEY); } catch (e) { return null; }
  }
  function storeSidebar(value) {
    try { window.localStorage.setItem(STORE_KEY, value); } catch (e) { /* storage off */ }
  }
  var toggle = document.getElementById("nav-toggle");
  var sidebar = document.getElementById("sidebar");
  var scrim = document.querySelector("[data-scrim]");

  function setDrawer(open) {
    body.classList.toggle("nav-open", open);
    if (scrim) { scrim.hidden = !open; }
    if (toggle) { toggle.setAttribute("aria-expanded", String(open)); }
    if (open && sidebar) {
      var first = sidebar.querySelector("a, summary");
      if (first) { first.focus(); }
    }
  }
  function applyWide() {
    var hidden = storedSidebar() === "hidden";
    body.classList.toggle("nav-collapsed", hidden);
    if (toggle) { toggle.setAttribute("aria-expanded", String(!hidden)); }
  }
  function applyLayout() {
    if (NARROW.matches) {
      body.classList.remove("nav-collapsed");
      setDrawer(false);
    } else {
      setDrawer(false);
      applyWide();
    }
  }
  if (toggle) {
    toggle.addEventListener("click", function () {
      if (NARROW.matches) {
        setDrawer(!body.classList.contains("nav-open"));
      } else {
        var hide = !body.classList.contains("nav-collapsed");
        storeSidebar(hide ? "hidden" : "shown");
        applyWide();
      }
    });
  }
  if (scrim) { scrim.addEventListener("click", function () { setDrawer(false); }); }
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && body.classList.contains("nav-open")) {
      setDrawer(false);
      if (toggle) { toggle.focus(); }
    }
  });
  document.addEventListener("click", function (e) {
    if (!body.classList.contains("nav-open")) { return; }
    if (sidebar && sidebar.contains(e.target)) {
      if (e.target.closest("a")) { setDrawer(false); }
      return;
    }
    if (toggle && toggle.contains(e.target)) { return; }
    setDrawer(false);
  });
  NARROW.addEventListener("change", applyLayout);
  applyLayout();

  // --- live connection --------------------------------------------------------------
  var status = document.getElementById("live-status");
  var project = body.getAttribute("data-project") || "";
  var source = null;
  var lastId = null;
  var retryTimer = null;
  var retryDelay = 1000;
  var KINDS = (document.querySelector('meta[name="relaybay-event-kinds"]') || {}).content;
  KINDS = KINDS ? KINDS.split(" ") : [];

  function setState(state) {
    if (!status) { return; }
    status.setAttribute("data-state", state);
    var label = status.querySelector(".label");
    if (label) { label.textContent = state; }
  }

  function dispatch(kind, data) {
    var name = "rb-" + kind.replace(/\./g, "-");
    body.dispatchEvent(new CustomEvent(name, { detail: data }));
    body.dispatchEvent(new CustomEvent("rb-event", { detail: data }));
    if (project && data && data.project === project) {
      body.dispatchEvent(new CustomEvent("rbp-" + kind.replace(/\./g, "-"), { detail: data }));
      body.dispatchEvent(new CustomEvent("rbp-event", { detail: data }));
    }
  }

  function onMessage(e) {
    if (e.lastEventId) { lastId = e.lastEventId; }
    var data = {};
    try { data = JSON.parse(e.data); } catch (err) { data = {}; }
    dispatch(e.type, data);
  }

  function connect() {
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    if (source) { source.close(); }
    setState("connecting");
    var url = "/events" + (lastId ? "?last_event_id=" + encodeURIComponent(lastId) : "");
    source = new EventSource(url);
    source.onopen = function () { retryDelay = 1000; setState("live"); };
    source.onerror = function () {
      // Reconnect ourselves so the replay asks from the last id we saw.
      source.close();
      source = null;
      setState("offline");
      retryTimer = setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 15000);
    };
    source.addEventListener("resync", function () { window.location.reload(); });
    KINDS.forEach(function (kind) { source.addEventListener(kind, onMessage); });
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { connect(); }
  });
  window.addEventListener("online", connect);
  window.addEventListener("offline", function () { setState("offline"); });
  window.relaybay = { reconnect: connect, state: function () { return status && status.getAttribute("data-state"); } };
  connect();
})();
