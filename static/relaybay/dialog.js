// The task dialog over the board and the task page (§2 Task dialog / page, Live updates).
//
// Dialog: a modal <dialog data-task-dialog> that a card loads into #dialog-slot (hx-get with
// hx-push-url), or that the board renders for /p/<slug>?task=<key>. Opened with showModal;
// the focus is trapped inside and handed back to the card on close. It closes with Esc, the
// browser's Back button, a click outside and the close button; the address follows
// (?task=<key>[&tab=…] while open, the board's URL after). body[data-dialog-open] is set
// while it is open, so the board's ← / → keys stay quiet.
//
// Live: the dialog's sections refresh themselves on the task's events (live_sections.js,
// loaded after this file; it uses the draft checks below through window.relaybayDrafts).
(function () {
  "use strict";

  var root = document.documentElement;
  var body = document.body;
  var ERROR_SWAPS = { 400: true, 404: true, 409: true };
  var FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), ' +
    'select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

  var open = null;          // the open <dialog>
  var opener = null;        // what opened it (a card's link)
  var nextOpener = null;    // the element whose request is loading a dialog
  var closingByHistory = false;
  var expectPop = false;        // our own history.back() after a close
  var suppressRestore = false;  // this popstate's htmx history restore: the board below is live
  var discardArmed = 0;     // time of the "unsaved edits" warning; a second close discards
  var pointerDownOnBackdrop = false;

  function htmx() { return window.htmx; }
  function slot() { return document.getElementById("dialog-slot"); }

  function visible(el) {
    return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  }

  function focusables(container) {
    return Array.prototype.filter.call(container.querySelectorAll(FOCUSABLE), visible);
  }

  function taskParam(url) {
    return new URL(url || window.location.href).searchParams.get("task");
  }

  function boardHref() {
    // The current address without the dialog's own parameters (page, search stay).
    var url = new URL(window.location.href);
    url.searchParams.delete("task");
    url.searchParams.delete("tab");
    return url.pathname + url.search + url.hash;
  }

  function dialogHref(dlg, tab) {
    var url = new URL(dlg.getAttribute("data-link") || boardHref(), window.location.href);
    var keep = new URL(window.location.href).searchParams;
    keep.forEach(function (value, name) {
      if (name !== "task" && name !== "tab") { url.searchParams.set(name, value); }
    });
    if (tab && tab !== "overview") { url.searchParams.set("tab", tab); }
    return url.pathname + url.search;
  }

  function keyOf(dlg) {
    return dlg.getAttribute("data-task-key") || taskParam() || "";
  }

  // --- drafts -----------------------------------------------------------------------------
  function fieldDirty(el) {
    if (!el.name || el.disabled || el.type === "hidden" || el.type === "submit" ||
        el.type === "button") { return false; }
    if (el.type === "checkbox" || el.type === "radio") { return el.checked !== el.defaultChecked; }
    if (el.tagName === "SELECT") {
      for (var i = 0; i < el.options.length; i++) {
        if (el.options[i].selected !== el.options[i].defaultSelected) { return true; }
      }
      return false;
    }
    return el.value !== el.defaultValue;
  }

  function formDirty(form) {
    if (form.hasAttribute("data-unsaved")) { return true; }  // a draft the server kept
    return Array.prototype.some.call(form.elements, fieldDirty);
  }

  function hasDraft(container) {
    if (container.matches && container.matches("form")) { return formDirty(container); }
    if (Array.prototype.some.call(container.querySelectorAll("form"), formDirty)) { return true; }
    return Array.prototype.some.call(
      container.querySelectorAll("input, textarea, select"),
      function (el) { return !el.form && fieldDirty(el); }
    );
  }

  // --- opening and closing ------------------------------------------------------------------
  function ensureHistoryEntry(dlg, direct) {
    var key = keyOf(dlg);
    var marker = { relaybayDialog: key };
    if (history.state && history.state.relaybayDialog === key) { return; }  // Forward
    if (direct) {
      // Loaded with ?task=: put the board underneath so Back closes the dialog.
      var here = window.location.pathname + window.location.search;
      history.replaceState(null, "", boardHref());
      history.pushState(marker, "", here);
    } else if (taskParam() === key) {
      history.replaceState(marker, "", window.location.pathname + window.location.search);
    } else {
      history.pushState(marker, "", dialogHref(dlg, dlg.getAttribute("data-tab")));
    }
  }

  function openDialog(dlg, direct) {
    if (open === dlg || dlg.open) { return; }
    if (open) { finishClose(true); }
    open = dlg;
    opener = nextOpener;
    nextOpener = null;
    discardArmed = 0;
    dlg.addEventListener("close", onClose);
    dlg.addEventListener("cancel", onCancel);
    dlg.showModal();
    body.dataset.dialogOpen = "1";
    root.classList.add("dialog-open");
    ensureHistoryEntry(dlg, direct);
    var first = dlg.querySelector("#task-title, #task-dialog-title") || focusables(dlg)[0];
    if (first) { first.focus({ preventScroll: true }); }
  }

  function requestClose() {
    if (!open) { return; }
    if (hasDraft(open) && Date.now() - discardArmed > 6000) {
      discardArmed = Date.now();
      say(open, "You have unsaved edits. Close again to discard them, or save first.");
      return;
    }
    open.close();
  }

  function onCancel(e) {
    // Esc: the same rule as every other way out.
    e.preventDefault();
    requestClose();
  }

  function onClose() { finishClose(false); }

  function restoreFocus(dlg) {
    var key = dlg.getAttribute("data-task-key");
    var target = opener && opener.isConnected && visible(opener) ? opener : null;
    if (!target && key) {
      var links = document.querySelectorAll('a[href$="?task=' + CSS.escape(key) + '"]');
      for (var i = 0; i < links.length && !target; i++) {
        if (!dlg.contains(links[i]) && visible(links[i])) { target = links[i]; }
      }
    }
    target = target || document.getElementById("main");
    if (target) { target.focus({ preventScroll: !!opener }); }
    opener = null;
  }

  function finishClose(replacing) {
    var dlg = open;
    if (!dlg) { return; }
    open = null;
    dlg.removeEventListener("close", onClose);
    dlg.removeEventListener("cancel", onCancel);
    if (dlg.open) { dlg.close(); }
    delete body.dataset.dialogOpen;
    root.classList.remove("dialog-open");
    if (!closingByHistory && !replacing) {
      if (history.state && history.state.relaybayDialog === keyOf(dlg)) {
        expectPop = true;  // the popstate this causes must not reload the board
        history.back();
      } else if (taskParam()) {
        history.replaceState(null, "", boardHref());
      }
    }
    closingByHistory = false;
    var parent = dlg.parentNode;
    if (parent) { parent.removeChild(dlg); }
    if (!replacing) { restoreFocus(dlg); }
  }

  // The slot carries the dialog's URL template ({% url 'task_dialog' slug '__key__' %}).
  function loadDialog(key, tab) {
    var s = slot();
    var template = s && s.getAttribute("data-dialog-url");
    if (!template || !htmx()) { return; }
    var url = template.replace("__key__", encodeURIComponent(key));
    if (tab) { url += "?tab=" + encodeURIComponent(tab); }
    htmx().ajax("GET", url, { target: s, swap: "innerHTML" });
  }

  // Back and Forward. Capturing on window runs before htmx's own onpopstate.
  window.addEventListener("popstate", function (e) {
    var key = taskParam();
    suppressRestore = expectPop;
    expectPop = false;
    // htmx restores synchronously inside this same event; the flag is for this pop only.
    setTimeout(function () { suppressRestore = false; }, 0);
    if (open) {
      if (key !== keyOf(open)) {
        closingByHistory = true;
        suppressRestore = true;
        open.close();
      }
    } else if (e.state && e.state.relaybayDialog && key === e.state.relaybayDialog && slot()) {
      suppressRestore = true;
      loadDialog(key, new URL(window.location.href).searchParams.get("tab"));
    }
  }, true);

  body.addEventListener("htmx:historyCacheMiss", function (e) {
    if (suppressRestore) { e.preventDefault(); }
    suppressRestore = false;
  });

  body.addEventListener("htmx:beforeRequest", function (e) {
    var s = slot();
    if (s && e.detail.target === s) { nextOpener = e.detail.elt === body ? null : e.detail.elt; }
  });

  document.addEventListener("click", function (e) {
    if (!open) { return; }
    var close = e.target.closest("[data-dialog-close]");
    if (close && open.contains(close)) {
      e.preventDefault();
      requestClose();
      return;
    }
    // A click on the backdrop lands on the <dialog> itself (the frame fills the box).
    if (e.target === open && pointerDownOnBackdrop) { requestClose(); }
  });
  document.addEventListener("pointerdown", function (e) {
    pointerDownOnBackdrop = !!open && e.target === open;
  });

  // Focus trap: Tab and Shift+Tab cycle inside the dialog (the browser UI included).
  document.addEventListener("keydown", function (e) {
    if (!open || e.key !== "Tab") { return; }
    var items = focusables(open);
    if (!items.length) { e.preventDefault(); return; }
    var first = items[0];
    var last = items[items.length - 1];
    var active = document.activeElement;
    if (!open.contains(active)) {
      e.preventDefault();
      first.focus();
    } else if (e.shiftKey && (active === first || active === open.querySelector("#task-title"))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && active === last) {
      e.preventDefault();
      first.focus();
    }
  });

  // --- tabs (Overview | Plan | Review) ------------------------------------------------------
  function selectTab(tab, focus) {
    var container = tab.closest("[data-task-root]");
    var tabs = container.querySelectorAll('[role="tab"]');
    Array.prototype.forEach.call(tabs, function (t) {
      var on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      var panel = document.getElementById(t.getAttribute("aria-controls"));
      if (panel) { panel.hidden = !on; }
    });
    var id = tab.getAttribute("data-tab-id");
    container.setAttribute("data-tab", id);
    if (focus) { tab.focus(); }
    if (container === open) {
      history.replaceState(history.state, "", dialogHref(container, id));
    }
  }

  document.addEventListener("click", function (e) {
    var tab = e.target.closest('[data-task-root] [role="tab"]');
    if (!tab || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) { return; }
    e.preventDefault();
    selectTab(tab, false);
  });
  document.addEventListener("keydown", function (e) {
    var tab = e.target.closest && e.target.closest('[data-task-root] [role="tab"]');
    if (!tab) { return; }
    var tabs = Array.prototype.slice.call(tab.parentNode.querySelectorAll('[role="tab"]'));
    var i = tabs.indexOf(tab);
    var next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) { return; }
    e.preventDefault();
    e.stopPropagation();
    selectTab(tabs[(next + tabs.length) % tabs.length], true);
  });

  // --- toolbar: Edit, Copy link -------------------------------------------------------------
  function say(container, message, extra) {
    var status = container.querySelector("[data-td-status]");
    if (!status) { return; }
    status.textContent = message;
    if (extra) { status.appendChild(extra); }
    clearTimeout(status._rbTimer);
    status._rbTimer = setTimeout(function () { status.textContent = ""; }, extra ? 15000 : 5000);
  }

  function copyLink(button) {
    var container = button.closest("[data-task-root]") || document;
    var url = new URL(button.getAttribute("data-copy-link"), window.location.href).href;
    function fallback() {
      var input = document.createElement("input");
      input.type = "text";
      input.readOnly = true;
      input.value = url;
      input.className = "td-copy-field";
      input.setAttribute("aria-label", "Link to this task");
      say(container, "Copying is not available here. Press Ctrl+C (⌘C) to copy: ", input);
      input.focus();
      input.select();
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(function () {
        say(container, "Link copied: " + url);
      }, fallback);
    } else {
      fallback();
    }
  }

  document.addEventListener("click", function (e) {
    var copy = e.target.closest("[data-copy-link]");
    if (copy) { e.preventDefault(); copyLink(copy); return; }
    var edit = e.target.closest("[data-edit-open]");
    if (!edit) { return; }
    var container = edit.closest("[data-task-root]");
    var box = container && container.querySelector("[data-edit-box]");
    if (!box) { return; }
    if (container.getAttribute("data-tab") && container.getAttribute("data-tab") !== "overview") {
      var overview = container.querySelector('[role="tab"][data-tab-id="overview"]');
      if (overview) { selectTab(overview, false); }
    }
    box.open = true;
    var still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    box.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
    var first = box.querySelector("input:not([type=hidden]), textarea, select");
    if (first) { first.focus({ preventScroll: true }); }
  });

  // Swaps: let the form's and the dialog's 4xx answers in (they say what was wrong).
  body.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    var target = d.target;
    var source = d.requestConfig && d.requestConfig.elt;
    var inForm = source && source.closest && source.closest("[data-task-form]");
    if (ERROR_SWAPS[d.xhr.status] && (inForm || target === slot())) {
      d.shouldSwap = true;
      d.isError = false;
    }
  });

  function onLoad(el) {
    if (!el || !el.matches) { return; }
    var dlg = el.matches("dialog[data-task-dialog]") ? el : el.querySelector("dialog[data-task-dialog]");
    if (dlg && !dlg.open) { openDialog(dlg, el === body); }
  }

  // Shared with live_sections.js, which never refreshes a section holding a draft.
  window.relaybayDrafts = { formDirty: formDirty, hasDraft: hasDraft };

  function start() {
    if (htmx()) {
      htmx().onLoad(onLoad);
    } else {
      // Without htmx there are no live refreshes; a server-rendered dialog still opens.
      var dlg = document.querySelector("dialog[data-task-dialog]");
      if (dlg) { openDialog(dlg, true); }
    }
  }
  start();
})();
