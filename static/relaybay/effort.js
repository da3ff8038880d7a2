// The Effort page of a project: its region (the table, totals and charts)
// refetches on this project's time events and token notices — the live table's "effort"
// kinds (tasks/live_refresh.py) — at most once every 3 s. Loaded by
// templates/effort/effort.html after htmx and app.js.
//
// app.js dispatches `rbp-event` for the page's project. htmx's own `delay` starts again at
// every event, so a steady flow of token notices would hold the refetch off for good, and
// its `throttle` drops what came during the window. Here the first event refetches after a
// short delay (a burst — a stage move with its binding and status events — costs one
// refetch) and any later ones in the same 3 s fold into one trailing refetch, so the last
// count always shows.
// The region replaces itself (outerHTML): live_fragments.js keeps a refresh that arrives
// during a refetch.
(function () {
  "use strict";

  var body = document.body;
  var GAP = 3000;
  var BURST = 300;
  var last = 0;
  var timer = null;

  function region() { return document.querySelector("[data-effort-live]"); }

  function refetch() {
    timer = null;
    last = Date.now();
    var el = region();
    if (el && window.htmx) { window.htmx.trigger(el, "refresh"); }
  }

  body.addEventListener("rbp-event", function (e) {
    var kind = (e.detail || {}).kind || "";
    if (!window.relaybayLive.concerns("effort", kind) || timer) { return; }
    timer = setTimeout(refetch, Math.max(BURST, last + GAP - Date.now()));
  });
})();
