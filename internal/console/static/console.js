// toolhost console: live parts of a page arrive as server-sent events carrying the rendered
// HTML of the part; everything else is plain forms that work without this file.
"use strict";
(function () {
  const toast = document.getElementById("toast");
  let toastTimer = 0;
  function notify(text) {
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { toast.hidden = true; }, 8000);
    if (window.Notification && Notification.permission === "granted" && document.hidden) {
      new Notification("toolhost", { body: text });
    }
  }
  function pendingCount(el) {
    const p = el.querySelector("[data-pending]");
    return p ? parseInt(p.getAttribute("data-pending"), 10) || 0 : 0;
  }
  const baseTitle = document.title;
  document.querySelectorAll("[data-live]").forEach(function (el) {
    const topic = el.getAttribute("data-live");
    let pending = pendingCount(el);
    const source = new EventSource("/events?topic=" + encodeURIComponent(topic));
    source.addEventListener(topic, function (ev) {
      // Keep what the user is typing or choosing in a form of the part being replaced.
      const focused = document.activeElement;
      if (focused && el.contains(focused) && (focused.tagName === "SELECT" || focused.tagName === "INPUT")) {
        return;
      }
      el.innerHTML = ev.data;
      el.setAttribute("data-updated", String(Date.now()));
      if (topic === "approvals") {
        const now = pendingCount(el);
        if (now > pending) {
          const first = el.querySelector(".request .target");
          notify("New approval request" + (first ? ": " + first.textContent : ""));
        }
        pending = now;
        document.title = (now ? "(" + now + ") " : "") + baseTitle;
      }
    });
  });
  // Ask once for desktop notifications, on a click (browsers ignore requests without one).
  const ask = document.getElementById("notify");
  if (ask && window.Notification && Notification.permission === "default") {
    ask.hidden = false;
    ask.addEventListener("click", function () { Notification.requestPermission(); ask.hidden = true; });
  }
  // Confirmations for destructive buttons, where scripts run.
  document.addEventListener("submit", function (ev) {
    const q = ev.target.getAttribute("data-confirm");
    if (q && !window.confirm(q)) {
      ev.preventDefault();
    }
  });
  // Import progress: the memory page's bar follows the live fragment; nothing else to do.
})();
