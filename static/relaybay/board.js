// The project board (§2 Paged board, Cards, Live updates). Loaded after htmx and app.js.
//
// - ← / → switch the two pages on wide screens by clicking the pager's links (htmx swaps
//   the columns and pushes the URL, no reload). Ignored inside inputs, text areas, selects
//   and editable text, with a modifier key, while the drawer, a dialog (body[data-dialog-open]
//   or an open <dialog>) or the screenshot viewer ([data-viewer-open]) is open.
// - The stage tab bar (phones) follows the ARIA tabs pattern: ← / → / Home / End move
//   between the tabs and select the one reached.
// - Live: app.js dispatches `rbp-<kind>` for this project's events. The board_columns kinds
//   of the refresh table (tasks/live_refresh.py) refetch the column set (hx-trigger on
//   #board-live). Any other event of one task is handed to that card as `rbc-<key>` (its
//   own hx-trigger refetches it); a session's hook status change goes to the cards that
//   show that session.
(function () {
  "use strict";

  var body = document.body;
  var root = document.documentElement;
  var NARROW = window.matchMedia("(max-width: 759px)");

  function cardRefresh(key) {
    if (key && document.getElementById("card-" + key)) {
      body.dispatchEvent(new CustomEvent("rbc-" + key));
    }
  }

  body.addEventListener("rbp-event", function (e) {
    var data = e.detail || {};
    // A card shows no effort: a task's token notices (effort_section) leave it be.
    if (data.key && !window.relaybayLive.concerns("board_columns", data.kind) &&
        !window.relaybayLive.concerns("effort_section", data.kind)) {
      cardRefresh(data.key);
    }
  });
  // Hook status events may carry no project: match the session name shown on cards.
  body.addEventListener("rb-session-status_changed", function (e) {
    var name = (e.detail || {}).session;
    if (!name) { return; }
    var cards = document.querySelectorAll(".card[data-session]");
    for (var i = 0; i < cards.length; i++) {
      if (cards[i].getAttribute("data-session") === name) {
        cardRefresh(cards[i].id.slice(5));  // id="card-<key>"
      }
    }
  });

  // --- keys -----------------------------------------------------------------------
  function typing(target) {
    if (!target || !target.closest) { return false; }
    if (target.isContentEditable) { return true; }
    return !!target.closest("input, textarea, select, [contenteditable]:not([contenteditable='false'])");
  }
  function overlayOpen() {
    var flag = body.getAttribute("data-dialog-open");
    if (flag !== null && flag !== "false") { return true; }
    if (document.querySelector("[data-viewer-open], dialog[open]")) { return true; }
    return root.classList.contains("nav-open");
  }

  function moveTab(tab, key) {
    var tabs = Array.prototype.slice.call(tab.parentNode.querySelectorAll("[role='tab']"));
    var at = tabs.indexOf(tab);
    var next = null;
    if (key === "ArrowRight") { next = tabs[(at + 1) % tabs.length]; }
    if (key === "ArrowLeft") { next = tabs[(at - 1 + tabs.length) % tabs.length]; }
    if (key === "Home") { next = tabs[0]; }
    if (key === "End") { next = tabs[tabs.length - 1]; }
    if (!next || next === tab) { return false; }
    next.focus();
    next.click();  // wired already: htmx settles in the swap (base.html)
    return true;
  }

  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.isComposing || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) {
      return;
    }
    var target = e.target;
    var tab = target && target.closest ? target.closest(".stage-tabs [role='tab']") : null;
    if (tab && /^(ArrowLeft|ArrowRight|Home|End)$/.test(e.key)) {
      if (moveTab(tab, e.key)) { e.preventDefault(); }
      return;
    }
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") { return; }
    if (NARROW.matches || typing(target) || overlayOpen()) { return; }
    var link = document.getElementById(e.key === "ArrowRight" ? "pager-2" : "pager-1");
    if (!link || link.getAttribute("aria-current") === "page") { return; }
    e.preventDefault();
    link.click();
  });

  // --- after switching page or tab -----------------------------------------------
  // Long stage labels may overflow the phone's tab bar: keep the selected tab in view.
  function revealTab() {
    var tab = document.querySelector(".stage-tabs [aria-selected='true']");
    if (tab && NARROW.matches && tab.parentNode.scrollWidth > tab.parentNode.clientWidth) {
      tab.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  }
  revealTab();

  // A switch the reader asked for starts at the top of the columns when they had
  // scrolled past it; live refreshes leave the scroll position alone.
  body.addEventListener("htmx:afterSwap", function (e) {
    if (e.target && e.target.id === "board-columns") { revealTab(); }
    var path = (e.detail && e.detail.pathInfo && e.detail.pathInfo.requestPath) || "";
    var board = document.getElementById("board");
    var columnsUrl = board && board.getAttribute("data-columns-url");  // {% url %} in board.html
    if (!columnsUrl || path.indexOf(columnsUrl) < 0 || path.indexOf("nav=push") < 0) { return; }
    var columns = document.getElementById("board-columns");
    if (!columns) { return; }
    var top = columns.getBoundingClientRect().top;
    var bar = document.querySelector(".topbar");
    var offset = bar ? bar.getBoundingClientRect().height : 0;
    if (top < offset) {
      window.scrollBy({ top: top - offset - 8, behavior: "instant" });
    }
  });
})();
