import { TOOLSETS } from '@sheetgate/proto';
import { html, type SafeHtml } from './html.ts';

/**
 * The toolset checkboxes (docs/design.md §11, "Toolsets") of the Create API key form and the
 * consent screen, `checked` ticked. A hidden field says the boxes were offered, so that none
 * checked (refused) differs from a post that never showed them.
 */
export function toolsetCheckboxes(checked: readonly string[], hint: string): SafeHtml {
  return html`<fieldset aria-describedby="toolsets-hint">
<legend>Toolsets</legend>
<p id="toolsets-hint" class="hint">${hint}</p>
<input type="hidden" name="toolsets_offered" value="1">
${TOOLSETS.map(
  // The description stays outside the label: the accessible name is the set's title alone (a
  // description's words must not make another field answer to a label such as "Name").
  (set) =>
    html`<div><label><input type="checkbox" name="toolsets" value="${set.name}" aria-describedby="toolset-${set.name}"${checked.includes(set.name) ? html` checked` : ''}> ${set.title}</label> <span id="toolset-${set.name}" class="muted">(${set.description})</span></div>`,
)}
</fieldset>`;
}

/** Toolsets by title; none stored (a key or app from before toolsets) means every set. */
export function toolsetTitles(names: readonly string[]): string {
  if (names.length === 0) return 'All';
  return TOOLSETS.filter((set) => names.includes(set.name))
    .map((set) => set.title)
    .join(', ');
}
