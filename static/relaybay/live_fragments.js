// Self-replacing live fragments (§2 Live updates): a card, the Inbox badge and list, the
// session list, the stands — every element that refetches itself on a live event (hx-get,
// hx-swap="outerHTML", no hx-target). Loaded on every page after htmx and app.js.
//
// A trigger arriving while such an element's refetch runs is queued by htmx on that
// element, and the answer replaces the element: htmx then drops the queued refetch, so the
// event never shows (the card keeps the state of before). Here that trigger is cancelled
// and owed instead, and sent from whichever element holds the id once the running refetch
// has ended, swapped or not. The task dialog's sections do the same in live_sections.js,
// where writes from inside a section join in.
(function () {
  "use strict";

  var body = document.body;
  var running = {};  // element id -> the XHR of its refetch in flight
  var owed = {};     // element id -> true: refetch once the running one has ended

  function selfReplacing(el) {
    return !!el && !!el.id && !!el.hasAttribute && el.hasAttribute("hx-get") &&
      !el.hasAttribute("hx-target") && el.getAttribute("hx-swap") === "outerHTML" &&
      !el.hasAttribute("data-live-section");
  }

  function inFlight(id) {
    var xhr = running[id];
    return !!xhr && xhr.readyState > 0 && xhr.readyState < 4;  // sent, not done or aborted
  }

  function pay(id) {
    if (!owed[id] || inFlight(id)) { return; }
    delete owed[id];
    var el = document.getElementById(id);
    if (!selfReplacing(el) || !window.htmx) { return; }  // gone with its page or column
    window.htmx.ajax("GET", el.getAttribute("hx-get"), { source: el, target: el, swap: "outerHTML" });
  }

  // htmx asks for confirmation of every request before its hx-sync and queue rules run.
  body.addEventListener("htmx:confirm", function (e) {
    var el = e.detail && e.detail.elt;
    if (!selfReplacing(el) || !inFlight(el.id)) { return; }
    e.preventDefault();
    owed[el.id] = true;
  });

  body.addEventListener("htmx:beforeSend", function (e) {
    var el = e.detail.elt;
    var xhr = e.detail.xhr;
    if (!selfReplacing(el) || !xhr) { return; }
    var id = el.id;
    running[id] = xhr;
    // loadend comes after htmx's load handler has swapped (settling in the swap: base.html
    // sets defaultSettleDelay 0), so the element holding the id now is wired.
    xhr.addEventListener("loadend", function () {
      if (running[id] === xhr) { delete running[id]; }
      setTimeout(function () { pay(id); }, 0);
    });
  });
})();
