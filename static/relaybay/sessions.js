// The Sessions pages (§2 Sessions): the list refetches on session and binding events, at
// most once per 2 s. Loaded by templates/sessions/sessions.html after htmx and app.js.
//
// app.js re-dispatches every live event on <body> as `rb-event`. htmx's own `throttle`
// drops the events that arrive during the window, so a status change a second after a
// binding would never show; here the first event refetches at once and any later ones in
// the same 2 s are folded into one trailing refetch.
(function () {
  "use strict";

  var body = document.body;
  var GAP = 2000;
  var last = 0;
  var timer = null;

  function list() { return document.querySelector("[data-sessions-live]"); }

  function refetch() {
    timer = null;
    last = Date.now();
    var el = list();
    if (el && window.htmx) { window.htmx.trigger(el, "refresh"); }
  }

  body.addEventListener("rb-event", function (e) {
    var kind = (e.detail || {}).kind || "";
    if (!window.relaybayLive.concerns("sessions", kind) || timer) { return; }
    var wait = last + GAP - Date.now();
    if (wait <= 0) { refetch(); } else { timer = setTimeout(refetch, wait); }
  });

  // A refresh replaces the list: the focus stays on the same link when it still exists.
  var focusHref = null;
  body.addEventListener("htmx:beforeSwap", function (e) {
    var el = list();
    var active = document.activeElement;
    focusHref = el && e.detail.target === el && el.contains(active) && active.getAttribute
      ? active.getAttribute("href") : null;
  });
  body.addEventListener("htmx:afterSettle", function () {
    if (!focusHref) { return; }
    var el = list();
    var links = el ? el.querySelectorAll("a[href]") : [];
    for (var i = 0; i < links.length; i++) {
      if (links[i].getAttribute("href") === focusHref) { links[i].focus(); break; }
    }
    focusHref = null;
  });
})();
