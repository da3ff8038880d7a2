// Stands & access (§7): the environment panels (#env-stands) refetch themselves on the
// refresh table's "stands" events (hx-trigger from {% live_trigger %}), but typed text is
// never replaced (docs/architecture.md §7): while a form inside holds a draft — typed
// text, or what a refused write kept (data-unsaved) — the refetch is not sent and a note
// says the stands changed. A refetch keeps the <details> that were open (an edit form, a
// delete question) and the focus. Loaded by templates/environments/environments.html
// after htmx and dialog.js (window.relaybayDrafts).
(function () {
  "use strict";

  var body = document.body;
  var kept = null;

  function stands() { return document.getElementById("env-stands"); }

  function hasDraft(el) {
    var drafts = window.relaybayDrafts;
    return !!drafts && drafts.hasDraft(el);
  }

  function stale() {
    var note = document.getElementById("env-stale");
    if (note) { note.hidden = false; }
  }

  body.addEventListener("htmx:beforeRequest", function (e) {
    var el = stands();
    if (el && e.detail.elt === el && hasDraft(el)) {
      e.preventDefault();
      stale();
    }
  });

  body.addEventListener("htmx:beforeSwap", function (e) {
    var el = stands();
    if (!el || e.detail.target !== el) { return; }
    if (hasDraft(el)) {  // typed into while the refetch was on its way: keep the text
      e.detail.shouldSwap = false;
      stale();
      return;
    }
    var active = document.activeElement;
    kept = {
      open: Array.prototype.map.call(el.querySelectorAll("details[open][id]"), function (d) {
        return d.id;
      }),
      focus: active && el.contains(active) && active.id ? active.id : null,
    };
  });

  // The new panels: open again what was open, at once (no flash), and give the focus back.
  function onLoad(el) {
    if (!kept || !el || el.id !== "env-stands") { return; }
    kept.open.forEach(function (id) {
      var found = document.getElementById(id);
      if (found && el.contains(found)) { found.open = true; }
    });
    var again = kept.focus && document.getElementById(kept.focus);
    if (again) { again.focus({ preventScroll: true }); }
    kept = null;
  }

  if (window.htmx) { window.htmx.onLoad(onLoad); }  // without htmx there are no refetches
})();
