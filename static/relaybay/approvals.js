// Approve and Deny on a request waiting for the owner (templates/sessions/partials/approval.html),
// on every page: a card, the Session panel and the Inbox show the same block.
//
// 1. A refusal (409: answered already; 400: the message is too long) comes back as the block
//    with the service's words and the typed message: htmx is let to swap it in, as the
//    dialog's forms are.
// 2. A Deny message being typed is never replaced: a live refetch of the card or the Inbox
//    list holding one is held back (the dialog's sections already keep drafts,
//    live_sections.js), and sent once the message is sent, cleared or its box closed.
(function () {
  "use strict";

  var body = document.body;
  var SWAPPED = { 400: true, 409: true };
  var held = {};  // element id -> a refetch owed once nothing is typed in it

  body.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    var target = d.target;
    if (SWAPPED[d.xhr.status] && target && target.matches && target.matches("[data-approval]")) {
      d.shouldSwap = true;
      d.isError = false;
    }
  });

  function typing(el) {
    return Array.prototype.some.call(
      el.querySelectorAll("[data-approval] details[open] textarea"),
      function (box) { return box.value.trim() !== ""; }
    );
  }

  body.addEventListener("htmx:confirm", function (e) {
    var el = e.detail && e.detail.elt;
    if (!el || !el.id || !el.querySelectorAll || e.detail.verb !== "get") { return; }
    if (el.closest("[data-approval]") || !typing(el)) { return; }
    e.preventDefault();
    held[el.id] = true;
  });

  function release() {
    Object.keys(held).forEach(function (id) {
      var el = document.getElementById(id);
      if (!el) { delete held[id]; return; }
      if (typing(el) || !window.htmx) { return; }
      delete held[id];
      window.htmx.ajax("GET", el.getAttribute("hx-get"), { source: el, target: el, swap: "outerHTML" });
    });
  }

  body.addEventListener("input", function (e) {
    if (e.target.closest && e.target.closest("[data-approval]")) { setTimeout(release, 0); }
  });
  body.addEventListener("toggle", function (e) {
    if (e.target.closest && e.target.closest("[data-approval]")) { setTimeout(release, 0); }
  }, true);
  body.addEventListener("htmx:afterRequest", function (e) {
    var el = e.detail && e.detail.elt;
    if (el && el.closest && el.closest("[data-approval]")) { setTimeout(release, 0); }
  });
})();
