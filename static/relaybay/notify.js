// relaybay: what the live events mean for the owner, on every page (loaded after app.js).
//
// 1. Change notices. app.js dispatches `rb-event` on <body> for every live event. The Inbox
//    list and badge listen to `rb-inbox-changed`, the Activity feed to `rb-activity-changed`;
//    both are dispatched here at most once per 2 s, with a trailing call so the last change
//    of a burst is never lost (htmx's own `throttle:` modifier drops it). Which kinds
//    concern the Inbox is the "inbox" row of the refresh table (tasks/live_refresh.py).
// 2. Browser notifications (§2 Browser notification). With the permission granted, a
//    task.stage_changed to review or test shows "Waiting for your acceptance: <key> <title>"
//    (tag = the key: one per task); a click opens the task's Review tab. The permission is
//    requested ONLY by the button on Settings → Notifications, never on page load. A session
//    that starts waiting for an answer (session.status_changed to waiting) shows
//    "<key> is waiting: <what on>". A tool call held for the owner's Approve or Deny
//    (approval.requested) shows "<agent> waits for your approval: <key> <title>" with the
//    command; its answer (approval.decided) closes that notification.
(function () {
  "use strict";

  var body = document.body;
  var GAP = 2000;

  // --- change notices ---------------------------------------------------------------------
  function throttled(name) {
    var timer = null;
    var pending = false;
    function fire() { body.dispatchEvent(new CustomEvent(name)); }
    function tick() {
      if (pending) {
        pending = false;
        fire();
        timer = setTimeout(tick, GAP);
      } else {
        timer = null;
      }
    }
    return function () {
      if (timer) { pending = true; return; }
      fire();
      timer = setTimeout(tick, GAP);
    };
  }

  function concernsInbox(kind) { return window.relaybayLive.concerns("inbox", kind); }

  var inboxChanged = throttled("rb-inbox-changed");
  var activityChanged = throttled("rb-activity-changed");

  body.addEventListener("rb-event", function (e) {
    var data = e.detail || {};
    var kind = String(data.kind || "");
    if (concernsInbox(kind)) { inboxChanged(); }
    // Activity lists the event log; a task's token notice (effort_section) is not in it.
    if (!window.relaybayLive.concerns("effort_section", kind)) { activityChanged(); }
    if (kind === "task.stage_changed") { notifyAcceptance(data); }
    if (kind === "session.status_changed") { notifyWaiting(data); }
    if (kind === "approval.requested") { notifyApproval(data); }
    if (kind === "approval.decided") { closeApproval(data); }
  });

  // --- browser notifications --------------------------------------------------------------
  function supported() { return "Notification" in window; }
  function permission() { return supported() ? window.Notification.permission : "unsupported"; }

  function show(text, options, href) {
    var note;
    try {
      note = new window.Notification(text, options);
    } catch (err) {
      return null;  // e.g. Android Chrome: page notifications need a service worker
    }
    if (href) {
      note.onclick = function () {
        window.focus();
        window.location.assign(href);
        if (note.close) { note.close(); }
      };
    }
    return note;
  }

  // URL templates from <body>, filled by base.html with {% url %}.
  function urlFor(name, values) {
    var url = body.getAttribute("data-" + name + "-url") || "";
    Object.keys(values).forEach(function (param) {
      url = url.replace("__" + param + "__", encodeURIComponent(values[param]));
    });
    return url;
  }

  function reviewHref(data) {
    return urlFor("board", { slug: data.project || "" }) + "?task=" +
      encodeURIComponent(data.key) + "&tab=review";
  }

  function notifyAcceptance(data) {
    if (permission() !== "granted") { return; }
    if ((data.to !== "review" && data.to !== "test") || !data.key) { return; }
    // The live message is small (no title): ask the server, fall back to the key alone.
    fetch(urlFor("task-title", { key: data.key }), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (r) { return r.ok ? r.json() : null; })
      .catch(function () { return null; })
      .then(function (info) {
        // A move replayed after a reconnect may be stale: the task has left that stage.
        if (info && info.stage && info.stage !== data.to) { return; }
        var title = info && info.title ? " " + info.title : "";
        var href = info && info.href ? info.href : reviewHref(data);
        show("Waiting for your acceptance: " + data.key + title, {
          tag: data.key,
          body: data.summary || "",
        }, href);
      });
  }

  // An agent waiting for an answer (a permission, a question, a plan): "<key> is waiting:
  // <what on>", one per task (the tag: a later one, or a replayed event, replaces it instead
  // of stacking); a click opens the task's dialog.
  function notifyWaiting(data) {
    if (permission() !== "granted") { return; }
    if (data.to !== "waiting" || !data.key) { return; }
    var href = urlFor("board", { slug: data.project || "" }) + "?task=" + encodeURIComponent(data.key);
    show(data.key + " is waiting: " + (data.waiting || "an answer"), {
      tag: "waiting-" + data.key,
      body: data.session ? "Session " + data.session : "",
    }, href);
  }

  // A request waiting for the owner: the agent, the task and the command, one per request
  // (the tag). The live message is small: ask the server for the names, and whether it still
  // waits (a replayed request already answered shows nothing); fall back to the message.
  var approvalNotes = {};  // request id -> its notification, closed once it is answered

  function notifyApproval(data) {
    if (permission() !== "granted" || !data.approval) { return; }
    var id = String(data.approval);
    fetch(urlFor("approval", { approval_id: id }), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (r) { return r.ok ? r.json() : null; })
      .catch(function () { return null; })
      .then(function (info) {
        if (info && info.state && info.state !== "pending") { return; }
        var agent = (info && info.agent) || data.agent || "An agent";
        var task = info && info.key ? info.key + (info.title ? " " + info.title : "") : (data.key || "");
        var call = info && info.call ? info.call :
          String(data.waiting || "").replace(/^your approval: /, "");
        var href = info && info.href ? info.href :
          (data.key ? urlFor("board", { slug: data.project || "" }) + "?task=" + encodeURIComponent(data.key) : "");
        var note = show(agent + " waits for your approval" + (task ? ": " + task : ""), {
          tag: "approval-" + id,
          body: call + (data.session ? " · session " + data.session : ""),
          requireInteraction: true,
        }, href);
        if (note) { approvalNotes[id] = note; }
      });
  }

  function closeApproval(data) {
    var id = String(data.approval || "");
    var note = approvalNotes[id];
    if (!note) { return; }
    delete approvalNotes[id];
    if (note.close) { note.close(); }
  }

  // --- Settings → Notifications -----------------------------------------------------------
  var panel = document.getElementById("notify-settings");
  if (!panel) { return; }

  function render() {
    var state = permission();
    panel.setAttribute("data-state", state);
    var parts = panel.querySelectorAll("[data-when]");
    for (var i = 0; i < parts.length; i++) {
      parts[i].hidden = parts[i].getAttribute("data-when") !== state;
    }
  }

  var allow = document.getElementById("notify-allow");
  if (allow) {
    allow.addEventListener("click", function () {
      if (!supported()) { render(); return; }
      allow.disabled = true;
      var done = function () { allow.disabled = false; render(); };
      // Older Safari takes a callback and returns nothing; newer browsers return a promise.
      var asked = window.Notification.requestPermission(done);
      if (asked && asked.then) { asked.then(done, done); }
    });
  }
  var test = document.getElementById("notify-test");
  if (test) {
    test.addEventListener("click", function () {
      show("relaybay notifications work", {
        tag: "relaybay-test",
        body: "Moves to review or test will show up like this.",
      }, null);
    });
  }
  // A change made in the browser's own site settings shows without a reload.
  if (navigator.permissions && navigator.permissions.query) {
    navigator.permissions.query({ name: "notifications" }).then(function (status) {
      status.onchange = render;
    }, function () { /* not queryable: the button still updates the state */ });
  }
  render();
})();
