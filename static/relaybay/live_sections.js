// Live sections of the task dialog and the task page (§2 Live updates). Loaded after
// dialog.js, which opens and closes the dialog and shares its draft checks
// (window.relaybayDrafts).
//
// An event of the shown task refetches every [data-live-section] of its [data-task-root]
// (hx-trigger "refresh"), except a section holding unsaved text; the edit form is never
// replaced while it holds a draft: it shows "changed by an agent — reload" instead. A
// panel showing a session (data-live-session) also follows that session's events; the
// Effort section (data-live-effort) alone follows the task's effort.updated notices.
(function () {
  "use strict";

  var body = document.body;
  var REFRESH_DELAY = 120;
  var formDirty = window.relaybayDrafts.formDirty;
  var hasDraft = window.relaybayDrafts.hasDraft;

  function htmx() { return window.htmx; }

  function staleNote(form, show) {
    var note = form.querySelector("[data-form-stale]");
    if (note) { note.hidden = !show; }
  }

  function reloadForm(form) {
    if (!htmx() || form.classList.contains("htmx-request")) { return; }
    htmx().ajax("GET", form.getAttribute("data-refresh-url"), { target: form, swap: "outerHTML" });
  }

  // The details carry the task's version; a form rendered from an older one is refetched
  // when it holds nothing typed, else it says so and keeps the draft.
  function syncForm(container) {
    var details = container.querySelector("#task-details");
    var form = container.querySelector("[data-task-form]");
    if (!details || !form) { return; }
    var current = parseInt(details.getAttribute("data-version"), 10) || 0;
    var shown = parseInt(form.getAttribute("data-version"), 10) || 0;
    var conflict = parseInt(form.getAttribute("data-conflict-version"), 10) || 0;
    // Not newer than the form (an answer that crossed a save), or already named by the
    // form's conflict box: nothing to say.
    if (current <= shown || current === conflict) { staleNote(form, false); return; }
    if (formDirty(form)) { staleNote(form, true); } else { reloadForm(form); }
  }

  // One refetch per section at a time, in order with the writes sent from inside it. htmx's
  // own queue cannot do it: a refetch's answer replaces the section (outerHTML), and a
  // request htmx queued on the replaced element is silently dropped, so an event arriving
  // during a slow refetch would never show. Here a refresh asked for while the section's
  // refetch or one of its writes runs is owed, and sent (from the new element) once they are
  // done. htmx:beforeSwap drops the answer of a refetch sent before a write (the write
  // answers with a newer state; a refresh is owed) and of one that would replace text typed
  // since it was sent.
  var running = {};    // section id -> its refetches and writes in flight (XHRs)
  var owed = {};       // section id -> a refresh to send once none runs
  var lastWrite = {};  // section id -> the number of the last write sent from inside it
  var sent = 0;        // numbers the requests above in the order they were sent

  function sectionOf(el) {
    var section = el && el.closest && el.closest("[data-live-section]");
    return section && section.id && section.closest("[data-task-root]") ? section : null;
  }

  function busy(id) {
    var live = (running[id] || []).filter(function (xhr) {
      return xhr.readyState > 0 && xhr.readyState < 4;  // sent, not done or aborted
    });
    running[id] = live;
    return live.length > 0;
  }

  // A section swapped in a moment ago keeps htmx's added class until htmx has wired its
  // hx-trigger; an event triggered on it before that has no listener and is lost (seen in
  // CI: a step update that arrived between a refetch's swap and its settle never showed).
  // So a refresh is owed while the section is busy or not wired yet, and paid on its load.
  function refresh(section) {
    if (!htmx() || hasDraft(section)) { return; }
    if (busy(section.id) || section.classList.contains("htmx-added")) {
      owed[section.id] = true;
      return;
    }
    htmx().trigger(section, "refresh");
  }

  function payOwed(id) {
    var section = document.getElementById(id);
    if (!owed[id] || !section) { return; }
    delete owed[id];
    refresh(section);  // owed again if it is still busy or not wired
  }

  body.addEventListener("htmx:beforeSend", function (e) {
    var d = e.detail;
    var section = sectionOf(d.elt);
    var refetch = !!section && d.elt === section;
    if (!section || (!refetch && d.requestConfig.verb === "get")) { return; }
    d.xhr._rbSection = section.id;
    d.xhr._rbSent = ++sent;
    d.xhr._rbRefetch = refetch;
    if (!refetch) { lastWrite[section.id] = sent; }
    (running[section.id] = running[section.id] || []).push(d.xhr);
  });
  body.addEventListener("htmx:afterRequest", function (e) {
    var id = e.detail.xhr && e.detail.xhr._rbSection;
    if (id) { payOwed(id); }
  });

  function refreshRoot(container) {
    container._rbTimer = null;
    Array.prototype.forEach.call(container.querySelectorAll("[data-live-section]"), refresh);
  }

  function schedule(container) {
    if (container._rbTimer) { return; }
    container._rbTimer = setTimeout(function () { refreshRoot(container); }, REFRESH_DELAY);
  }

  function rootsOf(key) {
    return Array.prototype.filter.call(
      document.querySelectorAll("[data-task-root]"),
      function (el) { return el.getAttribute("data-task-key") === key; }
    );
  }

  // A task's tokens grew (the live table's effort_section kinds, a throttled notice): only
  // the sections marked data-live-effort refetch, not the details, comments or sessions.
  function refreshEffort(container) {
    var marks = container.querySelectorAll("[data-live-effort]");
    Array.prototype.forEach.call(marks, function (mark) {
      var section = sectionOf(mark);
      if (section) { refresh(section); }
    });
  }

  body.addEventListener("rbp-event", function (e) {
    var d = e.detail || {};
    if (!d.key) { return; }
    if (window.relaybayLive.concerns("effort_section", d.kind)) {
      rootsOf(d.key).forEach(refreshEffort);
    } else {
      rootsOf(d.key).forEach(schedule);
    }
  });
  // A panel showing a session (e.g. its hook status) marks it with data-live-session; that
  // session's events (which may carry no task key or project) refresh the panel too.
  body.addEventListener("rb-event", function (e) {
    var session = (e.detail || {}).session;
    if (!session) { return; }
    var marks = document.querySelectorAll("[data-task-root] [data-live-session]");
    Array.prototype.forEach.call(marks, function (mark) {
      var section = sectionOf(mark);
      if (mark.getAttribute("data-live-session") === session && section) { refresh(section); }
    });
  });
  // The form's own save: refresh the details at once (the live event follows anyway).
  document.addEventListener("rb-task-saved", function (e) {
    var key = (e.detail || {}).key;
    if (key) { rootsOf(key).forEach(schedule); }
  });

  // Swaps: keep focus, open <details> and drafts. What a refreshed section had open and
  // focused is kept per section id (swaps may overlap).
  var kept = {};
  body.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    var target = d.target;
    var source = d.requestConfig && d.requestConfig.elt;
    if (!target || !target.id || !target.closest || !target.closest("[data-task-root]")) { return; }
    if (d.xhr._rbRefetch && target.id === d.xhr._rbSection) {
      if (d.xhr._rbSent < (lastWrite[target.id] || 0)) {
        d.shouldSwap = false;  // read before a write sent since: refetch once it is done
        owed[target.id] = true;
        return;
      }
      if (hasDraft(target)) {
        d.shouldSwap = false;  // typed into after the refetch was sent: keep the text
        return;
      }
    }
    if (d.requestConfig.verb === "get" && target.matches("[data-task-form]") && formDirty(target) &&
        !(source && source.hasAttribute && source.hasAttribute("data-form-reload"))) {
      d.shouldSwap = false;  // typed after the refetch started: keep the draft
      staleNote(target, true);
      return;
    }
    var active = document.activeElement;
    kept[target.id] = {
      focusInside: !!active && target.contains(active),
      focus: active && target.contains(active) && active.id ? active.id : null,
      open: Array.prototype.map.call(target.querySelectorAll("details[open]"), function (el) {
        return el.id ? "#" + el.id : el.getAttribute("data-keep-open");
      }).filter(Boolean),
    };
  });

  // The new section's <details> open again at once (no flash); the focus after htmx
  // settled, once the old section (which held it) is gone.
  function restoreOpen(el) {
    var saved = el.id && kept[el.id];
    if (!saved) { return; }
    saved.open.forEach(function (name) {
      var found = name.charAt(0) === "#" ? document.getElementById(name.slice(1))
        : el.querySelector('details[data-keep-open="' + CSS.escape(name) + '"]');
      if (found && el.contains(found)) { found.open = true; }
    });
  }

  body.addEventListener("htmx:afterSettle", function (e) {
    var el = e.target;
    var saved = el && el.id && kept[el.id];
    if (!saved || !el.isConnected) { return; }
    delete kept[el.id];
    var lost = !document.activeElement || document.activeElement === body;
    if (saved.focusInside && lost) {
      // The same element when it has an id; a form's Save button; else the title.
      var again = (saved.focus && document.getElementById(saved.focus)) ||
        (el.matches("form") && el.querySelector('button[type="submit"]')) ||
        el.closest("[data-task-root]").querySelector("#task-title");
      if (again) { again.focus({ preventScroll: true }); }
    }
  });

  function onLoad(el) {
    if (!el || !el.matches) { return; }
    Object.keys(owed).forEach(payOwed);
    if (el.closest("[data-task-root]")) {
      restoreOpen(el);
      if (el.id === "task-details" || el.matches("[data-task-form]")) {
        syncForm(el.closest("[data-task-root]"));
      }
    }
  }

  if (htmx()) { htmx().onLoad(onLoad); }  // without htmx there are no live refreshes
})();
