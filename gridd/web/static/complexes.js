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
    for (const option of consumable.options) {
      option.disabled = option.value !== "NO" && rule.consumable_relops.length === 0;
    }
    if (consumable.selectedOptions[0].disabled) consumable.value = "NO";
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
