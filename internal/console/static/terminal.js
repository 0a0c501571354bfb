// toolhost console: the Type page. Keys pressed while the screen has the keyboard go to the
// session (POST /terminals/input, in order, batched while one is on its way); the screen
// follows the session (GET /terminals/screen). Nothing here is needed to read the console.
"use strict";
(function () {
  const screen = document.getElementById("typing");
  if (!screen) {
    return;
  }
  const state = document.getElementById("typing-state");
  const conv = screen.getAttribute("data-conversation");
  const id = screen.getAttribute("data-id");
  const csrf = screen.getAttribute("data-csrf");
  const named = {
    Enter: "\r", Backspace: "\x7f", Tab: "\t", Escape: "\x1b",
    ArrowUp: "\x1b[A", ArrowDown: "\x1b[B", ArrowRight: "\x1b[C", ArrowLeft: "\x1b[D",
    Home: "\x1b[H", End: "\x1b[F", Delete: "\x1b[3~", PageUp: "\x1b[5~", PageDown: "\x1b[6~", Insert: "\x1b[2~",
  };
  // keyBytes is what a terminal sends for a key press; "" for keys it sends nothing for.
  function keyBytes(ev) {
    if (ev.metaKey) {
      return "";
    }
    if (ev.ctrlKey && !ev.altKey && ev.key.length === 1) {
      const c = ev.key.toUpperCase().charCodeAt(0);
      if (c >= 64 && c <= 95) {
        return String.fromCharCode(c - 64);
      }
      return ev.key === " " ? "\x00" : "";
    }
    if (named[ev.key]) {
      return (ev.altKey ? "\x1b" : "") + named[ev.key];
    }
    if (ev.key.length === 1 || [...ev.key].length === 1) {
      return (ev.altKey ? "\x1b" : "") + ev.key;
    }
    return "";
  }
  let queued = "";
  let sending = false;
  function say(text) {
    state.textContent = text;
  }
  function flush() {
    if (sending || queued === "") {
      return;
    }
    const keys = queued;
    queued = "";
    sending = true;
    const body = new URLSearchParams({ conversation: conv, id: id, keys: keys });
    fetch("/terminals/input", { method: "POST", body: body, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } })
      .then(function (res) {
        if (res.ok) {
          say("");
          return;
        }
        return res.text().then(function (t) { say("Not typed: " + t); });
      })
      .catch(function (err) { say("Not typed: " + err); })
      .finally(function () { sending = false; flush(); });
  }
  screen.addEventListener("keydown", function (ev) {
    const b = keyBytes(ev);
    if (b === "") {
      return;
    }
    ev.preventDefault();
    queued += b;
    flush();
  });
  screen.addEventListener("paste", function (ev) {
    const text = (ev.clipboardData || window.clipboardData).getData("text");
    if (text) {
      ev.preventDefault();
      queued += text.replace(/\r?\n/g, "\r");
      flush();
    }
  });
  let ended = false;
  function poll() {
    fetch("/terminals/screen?" + new URLSearchParams({ conversation: conv, id: id }), { credentials: "same-origin" })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (v) {
        if (!v || v.state !== "running") {
          ended = true;
          say("The session has ended.");
          screen.removeAttribute("tabindex");
          return;
        }
        if (screen.textContent !== v.screen) {
          screen.textContent = v.screen;
        }
      })
      .catch(function () {})
      .finally(function () {
        if (!ended) {
          setTimeout(poll, 150);
        }
      });
  }
  setTimeout(poll, 150);
})();
