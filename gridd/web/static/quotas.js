// The RQS editor: as the user types, /quotas/check parses the text with the server's
// own grammar, and its error is shown at its line in #rqs-error before anything is sent.
"use strict";

(function () {
  const form = document.getElementById("rqs-edit");
  if (!form) return;
  const text = form.elements.text;
  const shown = document.getElementById("rqs-error");
  const csrf = form.elements.csrf.value;
  let timer = null;
  let asked = 0;

  async function check() {
    const mine = ++asked;
    const answer = await fetch("/quotas/check", {
      method: "POST", credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf },
      body: new URLSearchParams({ text: text.value }) });
    if (mine !== asked || !answer.ok) return;  // a later check is under way, or failed
    const verdict = await answer.json();
    shown.textContent = verdict.ok ? "" : `line ${verdict.line}: ${verdict.message}`;
    text.setAttribute("aria-invalid", verdict.ok ? "false" : "true");
  }

  text.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(check, 250);
  });
})();
