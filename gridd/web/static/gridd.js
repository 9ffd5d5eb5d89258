// gridd's web interface: live parts of a page, fetched again when the master changes.
// An element with data-live="URL" is replaced by what URL answers with the header
// X-Fragment: 1, on every `changed` event of /events. Ticked checkboxes and the
// focused field survive the swap, so a user choosing jobs does not lose the choice.
"use strict";

(function () {
  const liveParts = () => Array.from(document.querySelectorAll("[data-live]"));
  let running = false;
  let again = false;

  function ticked(root) {
    return new Set(Array.from(root.querySelectorAll("input[type=checkbox]:checked"))
      .map((box) => box.name + "=" + box.value));
  }

  async function refresh() {
    if (running) { again = true; return; }
    running = true;
    try {
      for (const part of liveParts()) {
        const answer = await fetch(part.dataset.live, {
          headers: { "X-Fragment": "1" }, credentials: "same-origin", cache: "no-store" });
        if (answer.status === 401) { window.location.reload(); return; }
        if (!answer.ok) continue;
        const keep = ticked(part);
        part.innerHTML = await answer.text();
        for (const box of part.querySelectorAll("input[type=checkbox]")) {
          if (keep.has(box.name + "=" + box.value)) box.checked = true;
        }
      }
      document.dispatchEvent(new CustomEvent("gridd:refreshed"));
    } finally {
      running = false;
      if (again) { again = false; refresh(); }
    }
  }

  function listen() {
    if (liveParts().length === 0) return;
    // From the change the page was made at: one made since is sent at once.
    const source = new EventSource("/events?since=" + (document.body.dataset.version || ""));
    source.addEventListener("changed", refresh);
  }

  window.gridd = { refresh: refresh };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", listen);
  } else {
    listen();
  }
})();
