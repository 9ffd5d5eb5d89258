// The complex editor offers only what the master accepts: the choices per type come
// from the server (gridd.model.complexes.editor_choices), in #complex-choices.
"use strict";

(function () {
  const form = document.getElementById("complex-edit");
  const data = document.getElementById("complex-choices");
  if (!form || !data) return;
  const choices = JSON.parse(data.textContent);
  const type = form.elements.type;
  const consumable = form.elements.consumable;
  const relop = form.elements.relop;
  const fallback = form.elements["default"];

  function offer() {
    const rule = choices[type.value];
    // A type without operators for a fixed value (RSMAP) is always a consumable.
    for (const option of consumable.options) {
      const relops = option.value === "NO" ? rule.relops : rule.consumable_relops;
      option.disabled = relops.length === 0;
    }
    if (consumable.selectedOptions[0].disabled) {
      consumable.value = rule.relops.length ? "NO" : "YES";
    }
    const isConsumable = consumable.value !== "NO";
    const relops = isConsumable ? rule.consumable_relops : rule.relops;
    const was = relop.value;
    relop.replaceChildren(...relops.map((r) => new Option(r, r, false, r === was)));
    fallback.disabled = !isConsumable;
  }

  type.addEventListener("change", offer);
  consumable.addEventListener("change", offer);
  offer();
})();
