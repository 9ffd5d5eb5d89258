// The RQS editor of /quotas: as the user types, the text goes to /quotas/check (the
// server's RQS grammar, not a copy here) and the grammar's first error is shown in
// #rqs-error as "line N: message"; a text with an error is not sent to the master.
"use strict";

(function () {
  const WAIT_MS = 300;  // typing pauses this long before the text is checked

  function start() {
    const form = document.getElementById("rqs-edit");
    if (!form) return;
    const text = form.elements["text"];
    const shown = document.getElementById("rqs-error");
    let timer = null;
    let asked = 0;

    async function check() {
      const mine = ++asked;
      const body = new FormData();
      body.append("text", text.value);
      const answer = await fetch("/quotas/check", {
        method: "POST", body: body, credentials: "same-origin",
        headers: { "X-CSRF-Token": form.elements["csrf"].value } });
      if (!answer.ok || mine !== asked) return null;  // a later check answers instead
      const verdict = await answer.json();
      shown.textContent = verdict.ok ? "" : "line " + verdict.line + ": " + verdict.message;
      return verdict;
    }

    text.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(check, WAIT_MS);
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearTimeout(timer);
      const verdict = await check();
      if (verdict === null || verdict.ok) form.submit();  // unanswered: the master judges
    });
    check();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
