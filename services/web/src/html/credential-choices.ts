import { type CredentialChoices, DEFAULT_CREDENTIAL_CHOICES } from '@sheetgate/proto';
import { html, type SafeHtml, untrustedName, untrustedText } from './html.ts';

/**
 * A credential's two choices (docs/design.md §11.10), named as the MCP service's refusals name
 * them ("allow it on the dashboard, …"): the form field, its label, and what it covers.
 */
export const CHOICES = [
  {
    field: 'may_act_outbound',
    key: 'mayActOutbound',
    label: 'May share and send outside your account',
    hint: 'Sharing with people outside your organisation or with anyone with the link, sharing e-mails, comments that notify others, formulas that fetch from the web, and writing into files owned outside. A client that can ask you asks first.',
  },
  {
    field: 'may_destroy_unasked',
    key: 'mayDestroyUnasked',
    label: 'A client that cannot ask me may delete and clear without asking',
    hint: 'Every change can be undone from Activity. A client that can ask you asks first.',
  },
] as const;

/** A credential's choices as auth lists them; a key or app that never chose has the defaults. */
export const choicesOf = (credential: { choices?: CredentialChoices | undefined }): CredentialChoices =>
  credential.choices ?? { ...DEFAULT_CREDENTIAL_CHOICES };

/**
 * The choices of the Create API key form and the consent screen, each with what it covers. A
 * hidden field says they were offered, so that both unticked differs from a post that never
 * showed them (which gets the defaults).
 */
export function choiceCheckboxes(checked: CredentialChoices, changeHint: string): SafeHtml {
  return html`<fieldset aria-describedby="choices-hint">
<legend>Sharing and deleting</legend>
<p id="choices-hint" class="hint">${changeHint}</p>
<input type="hidden" name="choices_offered" value="1">
${CHOICES.map(
  (choice) =>
    html`<div><label><input type="checkbox" name="${choice.field}" value="on" aria-describedby="${`${choice.field}-hint`}"${checked[choice.key] ? html` checked` : ''}> ${choice.label}</label>
<p id="${`${choice.field}-hint`}" class="hint">${choice.hint}</p></div>`,
)}
</fieldset>`;
}

/**
 * One row's choices on the dashboard, changed in place: the two boxes and Save, posted to
 * `action` with the row's id. The hints are said once above the table, not in every row.
 */
export function choiceRowForm(options: {
  action: string;
  csrf: string;
  idField: 'key' | 'client';
  id: string;
  /** The key's or app's name as its owner sees it, for the group and the button's names. */
  name: string;
  choices: CredentialChoices;
}): SafeHtml {
  const { choices } = options;
  return html`<form method="post" action="${options.action}" class="choices">
<input type="hidden" name="csrf" value="${options.csrf}">
<input type="hidden" name="${options.idField}" value="${options.id}">
<fieldset><legend class="visually-hidden">Choices for ${untrustedName(options.name)}</legend>
${CHOICES.map(
  (choice) =>
    html`<label><input type="checkbox" name="${choice.field}" value="on"${choices[choice.key] ? html` checked` : ''}> ${choice.label}</label>`,
)}
</fieldset>
<button type="submit" aria-label="${`Save choices for ${untrustedText(options.name)}`}">Save</button>
</form>`;
}

/** Both choices' hints, said once beside a table of rows with choiceRowForm. */
export function choiceHints(): SafeHtml {
  return html`<ul class="hint choice-hints">
${CHOICES.map((choice) => html`<li><strong>${choice.label}</strong>: ${choice.hint}</li>`)}
<li>A change holds from the key's or app's next call; no reconnecting needed.</li>
</ul>`;
}

/** A form's checkboxes as choices: a ticked box sends "on", an unticked one nothing. */
export const choicesFromForm = (form: {
  may_act_outbound?: 'on' | undefined;
  may_destroy_unasked?: 'on' | undefined;
}): CredentialChoices => ({
  mayActOutbound: form.may_act_outbound === 'on',
  mayDestroyUnasked: form.may_destroy_unasked === 'on',
});
