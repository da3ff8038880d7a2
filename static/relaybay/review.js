// The Review tab's screenshots (§2 Review tab, Viewer): Ctrl+V paste into a step and the
// full-screen viewer. No inline script or style: the CSP forbids them.
//
// Paste: with an image in the clipboard and the focus inside a step ([data-paste-url]),
// the raw image is POSTed to that URL with its content type and the CSRF token in
// X-Relaybay-CSRF; the answer is the re-rendered panel, swapped in with htmx. A refusal
// (400 with the reason, 413 over the size limit) is shown in the panel's status line.
//
// Viewer: a thumbnail ([data-viewer-shot]) opens a modal <dialog class="viewer"> over the
// task dialog: the image fitted to the screen, its caption, "3 / 7" across the task's
// screenshots, ‹ › and ← / →, swipe on touch screens, Esc or Close to leave (the task
// dialog stays open). body[data-viewer-open] is set meanwhile (the board's keys stay
// quiet); the focus goes into the viewer and back to the thumbnail after.
(function () {
  "use strict";

  var body = document.body;
  var SWIPE = 50;

  function htmx() { return window.htmx; }

  // --- comment drafts across a re-render ----------------------------------------------------
  // Every write of the tab (a step's decision, Remove, paste) answers the whole panel. The
  // live refresh never lands over typed text (dialog.js holds it back and drops an answer
  // that would), but a write's answer must swap. Rather than teach each answer to swap one
  // step (the counts and the other steps change with it), the text typed into the comment
  // boxes is kept across any swap of a panel: taken just before (htmx:beforeSwap, or
  // upload() below, whose htmx.swap fires no beforeSwap), put back into the boxes of the
  // same id right after (htmx:afterSwap, before the user can type into the new panel), with
  // the caret. The box of the form just submitted, or still on its way (htmx-request: a
  // refresh landing meanwhile), is left out: its comment was sent (on an error the server
  // renders it back itself).
  var drafts = {};  // task key -> { box id: { value, start, end, focused } }

  function panelsIn(el) {
    if (!el || !el.matches) { return []; }
    if (el.matches("[data-review-panel]")) { return [el]; }
    return Array.prototype.slice.call(el.querySelectorAll("[data-review-panel]"));
  }

  function takeDrafts(el, sent) {
    panelsIn(el).forEach(function (panel) {
      var kept = {};
      var boxes = panel.querySelectorAll("textarea.rv-comment-box");
      Array.prototype.forEach.call(boxes, function (box) {
        var form = box.form;
        if (!box.id || !box.value || (sent && sent.contains(box)) ||
            (form && form.classList.contains("htmx-request"))) { return; }
        kept[box.id] = {
          value: box.value, start: box.selectionStart, end: box.selectionEnd,
          focused: document.activeElement === box,
        };
      });
      drafts[panel.getAttribute("data-task-key")] = kept;
    });
  }

  function putDrafts(el) {
    panelsIn(el).forEach(function (panel) {
      var key = panel.getAttribute("data-task-key");
      var kept = drafts[key];
      delete drafts[key];
      Object.keys(kept || {}).forEach(function (id) {
        var box = document.getElementById(id);
        var saved = kept[id];
        if (!box || !panel.contains(box) || box.value) { return; }  // gone, or the server's text
        box.value = saved.value;
        var lost = !document.activeElement || document.activeElement === body;
        if (saved.focused && lost) { box.focus({ preventScroll: true }); }
        try { box.setSelectionRange(saved.start, saved.end); } catch (err) { /* detached */ }
      });
    });
  }

  body.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    if (!d.shouldSwap) { return; }
    var source = d.requestConfig && d.requestConfig.elt;
    takeDrafts(d.target, source && source.closest ? source.closest("form") : null);
  });
  body.addEventListener("htmx:afterSwap", function (e) { putDrafts(e.target); });

  // --- paste ------------------------------------------------------------------------------
  // The last paste message survives a live refresh of its panel for a while.
  var KEEP_MESSAGE = 10000;
  var lastMessage = null;  // { key, text, isError, at }

  function put(panel, text, isError) {
    var status = panel && panel.querySelector("[data-paste-status]");
    if (!status) { return; }
    status.textContent = text;
    status.classList.toggle("error", !!isError);
  }

  function say(panel, message, isError) {
    if (!panel) { return; }
    lastMessage = {
      key: panel.getAttribute("data-task-key"), text: message, isError: !!isError, at: Date.now(),
    };
    put(panel, message, isError);
  }

  body.addEventListener("htmx:load", function (e) {
    var el = e.target;
    if (!lastMessage || !el.matches) { return; }
    // A live refresh swaps the panel's section; our own paste swaps the panel itself.
    el = el.matches("[data-review-panel]") ? el : el.querySelector("[data-review-panel]");
    if (!el || el.getAttribute("data-task-key") !== lastMessage.key) { return; }
    if (Date.now() - lastMessage.at > KEEP_MESSAGE) { lastMessage = null; return; }
    put(el, lastMessage.text, lastMessage.isError);
  });

  function imageOf(data) {
    if (!data) { return null; }
    var items = data.items || [];
    for (var i = 0; i < items.length; i++) {
      if (items[i].kind === "file" && /^image\//.test(items[i].type)) {
        var file = items[i].getAsFile();
        if (file) { return file; }
      }
    }
    var list = data.files || [];
    for (var j = 0; j < list.length; j++) {
      if (/^image\//.test(list[j].type)) { return list[j]; }
    }
    return null;
  }

  function swapPanel(panel, html) {
    if (htmx() && htmx().swap) {
      htmx().swap(panel, html, { swapStyle: "outerHTML" });
    } else {
      panel.outerHTML = html;
    }
  }

  function upload(step, file) {
    var panel = step.closest("[data-review-panel]");
    var token = panel && panel.querySelector('input[name="csrf_token"]');
    if (!panel || !token) { return; }
    var stepId = step.id;
    var label = step.querySelector(".rv-num");
    var which = label ? "step " + label.textContent.replace(".", "") : "the step";
    say(panel, "Uploading the screenshot to " + which + "…", false);
    fetch(step.getAttribute("data-paste-url"), {
      method: "POST",
      body: file,
      credentials: "same-origin",
      headers: {
        "Content-Type": file.type || "application/octet-stream",
        "X-Relaybay-CSRF": token.value,
        "HX-Request": "true",
      },
    }).then(function (response) {
      return response.text().then(function (text) {
        var key = panel.getAttribute("data-task-key");
        // A live refresh may have replaced the panel meanwhile.
        var current = document.getElementById("review-panel-" + key) || panel;
        if (!response.ok) {
          say(current, "Not attached: " + text.trim(), true);
          return;
        }
        takeDrafts(current, null);
        swapPanel(current, text);
        var fresh = document.getElementById("review-panel-" + key);
        say(fresh, "Screenshot added to " + which + ".", false);
        var again = document.getElementById(stepId);
        if (again) { again.focus({ preventScroll: true }); }
      });
    }, function () {
      say(panel, "Not attached: the server could not be reached.", true);
    });
  }

  document.addEventListener("paste", function (e) {
    var active = document.activeElement;
    var step = active && active.closest ? active.closest("[data-paste-url]") : null;
    if (!step) { return; }
    var file = imageOf(e.clipboardData);
    if (!file) { return; }  // plain text pastes into the comment box as usual
    e.preventDefault();
    upload(step, file);
  });

  // A click on a step's free space puts the focus inside it, so Ctrl+V knows the step.
  document.addEventListener("click", function (e) {
    var step = e.target.closest && e.target.closest("[data-paste-url]");
    if (step && e.target === step) { step.focus({ preventScroll: true }); }
  });

  // --- viewer -----------------------------------------------------------------------------
  var viewer = null;  // { el, shots, index, opener, panelKey, number }

  function make(tag, className, text) {
    var el = document.createElement(tag);
    if (className) { el.className = className; }
    if (text) { el.textContent = text; }
    return el;
  }

  function collect(panel) {
    var links = panel.querySelectorAll("[data-viewer-shot]");
    var shots = Array.prototype.map.call(links, function (link) {
      var figure = link.closest("figure");
      var caption = figure && figure.querySelector("figcaption");
      return {
        number: parseInt(link.getAttribute("data-viewer-shot"), 10) || 0,
        src: link.getAttribute("href"),
        caption: caption,
      };
    });
    shots.sort(function (a, b) { return a.number - b.number; });
    return shots;
  }

  function show(index) {
    var v = viewer;
    var n = v.shots.length;
    v.index = (index + n) % n;
    var shot = v.shots[v.index];
    v.img.src = shot.src;
    v.img.alt = "Screenshot " + (v.index + 1) + " of " + n;
    v.counter.textContent = (v.index + 1) + " / " + n;
    v.caption.textContent = "";
    if (shot.caption) {
      Array.prototype.forEach.call(shot.caption.childNodes, function (node) {
        v.caption.appendChild(node.cloneNode(true));
      });
    }
    v.caption.hidden = !shot.caption;
    v.prev.disabled = n < 2;
    v.next.disabled = n < 2;
  }

  function focusables() {
    return Array.prototype.filter.call(
      viewer.el.querySelectorAll("button:not([disabled]), a[href]"),
      function (el) { return el.offsetWidth || el.offsetHeight; }
    );
  }

  function onKey(e) {
    if (!viewer) { return; }
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      e.preventDefault();
      e.stopPropagation();
      show(viewer.index + (e.key === "ArrowRight" ? 1 : -1));
    } else if (e.key === "Tab") {
      // The task dialog's focus trap must not pull the focus back under the viewer.
      e.stopPropagation();
      var items = focusables();
      if (!items.length) { e.preventDefault(); return; }
      var first = items[0];
      var last = items[items.length - 1];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    }
  }

  function closeViewer() {
    var v = viewer;
    if (!v) { return; }
    viewer = null;
    if (v.el.open) { v.el.close(); }
    if (v.el.parentNode) { v.el.parentNode.removeChild(v.el); }
    delete body.dataset.viewerOpen;
    var back = v.opener && v.opener.isConnected ? v.opener : null;
    if (!back) {
      var panel = document.getElementById("review-panel-" + v.panelKey);
      back = panel && panel.querySelector('[data-viewer-shot="' + v.number + '"]');
    }
    if (back) { back.focus({ preventScroll: true }); }
  }

  function openViewer(link) {
    var panel = link.closest("[data-review-panel]");
    if (!panel) { return; }
    if (viewer) { closeViewer(); }
    var shots = collect(panel);
    var number = parseInt(link.getAttribute("data-viewer-shot"), 10) || 1;
    var el = make("dialog", "viewer");
    el.setAttribute("aria-label", "Screenshot viewer");
    var top = make("div", "viewer-top");
    var counter = make("p", "viewer-counter");
    counter.setAttribute("aria-live", "polite");
    var close = make("button", "viewer-close", "Close");
    close.type = "button";
    top.appendChild(counter);
    top.appendChild(close);
    var stage = make("div", "viewer-stage");
    var prev = make("button", "viewer-prev", "‹");
    prev.type = "button";
    prev.setAttribute("aria-label", "Previous screenshot");
    var next = make("button", "viewer-next", "›");
    next.type = "button";
    next.setAttribute("aria-label", "Next screenshot");
    var img = make("img", "viewer-img");
    img.draggable = false;
    stage.appendChild(prev);
    stage.appendChild(img);
    stage.appendChild(next);
    var caption = make("div", "md viewer-caption");
    el.appendChild(top);
    el.appendChild(stage);
    el.appendChild(caption);

    viewer = {
      el: el, shots: shots, index: 0, opener: link, number: number,
      panelKey: panel.getAttribute("data-task-key"),
      img: img, counter: counter, caption: caption, prev: prev, next: next,
    };
    var start = 0;
    shots.forEach(function (s, i) { if (s.number === number) { start = i; } });
    show(start);

    close.addEventListener("click", closeViewer);
    prev.addEventListener("click", function () { show(viewer.index - 1); });
    next.addEventListener("click", function () { show(viewer.index + 1); });
    el.addEventListener("cancel", function (e) { e.preventDefault(); closeViewer(); });
    el.addEventListener("keydown", onKey);
    var downX = null;
    stage.addEventListener("pointerdown", function (e) {
      downX = e.isPrimary ? e.clientX : null;
    });
    stage.addEventListener("pointerup", function (e) {
      if (downX === null || !viewer) { return; }
      var dx = e.clientX - downX;
      downX = null;
      if (Math.abs(dx) >= SWIPE) { show(viewer.index + (dx < 0 ? 1 : -1)); }
    });
    stage.addEventListener("pointercancel", function () { downX = null; });

    body.appendChild(el);
    body.dataset.viewerOpen = "1";
    el.showModal();
    close.focus();
  }

  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("[data-viewer-shot]");
    if (!link || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) { return; }
    e.preventDefault();
    openViewer(link);
  });
})();
