import { ChangeCredentialKind, type ChangeSummary, describeChange, outboundMark } from '@sheetgate/proto';
import { html, type SafeHtml, untrustedName } from '../html/html.ts';
import { type HeaderAccount, renderPage } from '../html/layout.ts';
import { displayTime } from '../html/time.ts';

/** A cell as undo names it: `B2`, or `Sheet1!B2` / `'My tab'!B2`. */
const A1_CELL = /(^|!)\$?[A-Z]{1,3}\$?\d+$/;

/** What the page says above the list after an Undo. */
export type ActivityMessage =
  /** Undone (after the redirect): the change's id. */
  | { kind: 'undone'; changeId: string }
  /** Refused: cells changed since (at most 20 named, `total` in all); offers "Undo anyway". */
  | { kind: 'changed_since'; changeId: string; cells: string[]; total: number }
  /** Not undone, for the reason `text` gives; `next` links where to fix it. */
  | { kind: 'not_undone'; text: string; next?: { href: string; label: string } };

export interface ActivityInput {
  account: HeaderAccount;
  changes: ChangeSummary[];
  /** The spreadsheet the list is narrowed to, if any. */
  spreadsheetId?: string | undefined;
  /** The next page's token, '' on the last page. */
  nextPageToken: string;
  /** The CSRF token of the Undo forms (purpose `undo-change`, bound to this session). */
  undoCsrf: string;
  message?: ActivityMessage | undefined;
}

/** Google's spreadsheet ids are URL-safe; anything else is shown but never linked. */
const GOOGLE_ID = /^[A-Za-z0-9_-]{1,200}$/;

function spreadsheetLink(id: string): SafeHtml | string {
  return GOOGLE_ID.test(id)
    ? html`<a href="${`https://docs.google.com/spreadsheets/d/${encodeURIComponent(id)}/edit`}" rel="noopener noreferrer">Open spreadsheet ${id} in Google Sheets</a>`
    : '';
}

function credential(change: ChangeSummary): SafeHtml {
  // The person themself, undoing on this page: no key or app to name.
  if (change.credentialKind === ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_DASHBOARD)
    return html`Dashboard <span class="muted">(you)</span>`;
  const kind =
    change.credentialKind === ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY ? 'API key' : 'App';
  return change.credentialName
    ? html`${kind} ${untrustedName(change.credentialName)}`
    : html`${kind} <span class="muted">(no longer exists)</span>`;
}

/**
 * What a change did, as list_changes says it; tab and range names in it are others' to choose. A
 * change that sent something outside the person's account shows its mark (`outbound (to …)`)
 * strong, the words the same.
 */
const words = (change: ChangeSummary) => {
  const said = describeChange(change);
  const outbound = outboundMark(said);
  if (!outbound) return untrustedName(said, 300);
  return html`<strong class="outbound">${untrustedName(outbound.mark, 200)}</strong>: ${untrustedName(outbound.rest, 300)}`;
};

/** A change's time as a button's name says it, to the second: two changes of one range in one minute differ. */
const toTheSecond = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** POST /dashboard/activity/undo: the change, the list's filter to come back to, and `force`. */
function undoForm(
  change: { id: string },
  context: { csrf: string; spreadsheetId?: string | undefined },
  button: SafeHtml,
  force = false,
): SafeHtml {
  return html`<form method="post" action="/dashboard/activity/undo" class="inline">
<input type="hidden" name="csrf" value="${context.csrf}">
<input type="hidden" name="change" value="${change.id}">
${context.spreadsheetId ? html`<input type="hidden" name="spreadsheet" value="${context.spreadsheetId}">` : ''}
${force ? html`<input type="hidden" name="force" value="yes">` : ''}
${button}
</form>`;
}

function status(change: ChangeSummary, input: ActivityInput): SafeHtml {
  if (change.undoneAtMs) return html`Undone ${displayTime(new Date(change.undoneAtMs).toISOString())}`;
  if (!change.undoable)
    return html`<span class="muted">Cannot be undone. ${change.undoUnavailableReason || 'Undo is not available for it.'}</span>`;
  // The button's name says what it undoes, in the row's words: a list of them must be told apart by ear too.
  const label = `Undo: ${describeChange(change)}, ${toTheSecond(change.occurredAtMs)}`;
  return html`Can be undone ${undoForm(change, { csrf: input.undoCsrf, spreadsheetId: input.spreadsheetId }, html`<button type="submit" aria-label="${label}">Undo</button>`)}
<br><span class="muted">An agent can call <code>undo_change</code> with <code>${change.id}</code>.</span>`;
}

function message(input: ActivityInput): SafeHtml | string {
  const shown = input.message;
  if (!shown) return '';
  if (shown.kind === 'undone') {
    const change = input.changes.find((candidate) => candidate.id === shown.changeId);
    return html`<div class="notice" role="status"><p><strong>Undone.</strong> ${change ? html`What change <code>${change.id}</code> did (${words(change)}, spreadsheet <code>${change.spreadsheetId}</code>)` : html`What change <code>${shown.changeId}</code> did`} is back to what it was before. The undo is listed below as a change of the dashboard, which can itself be undone.</p></div>`;
  }
  if (shown.kind === 'not_undone')
    return html`<div class="error" role="alert"><p><strong>Not undone.</strong> ${shown.text}</p>${shown.next ? html`<p><a href="${shown.next.href}">${shown.next.label}</a></p>` : ''}</div>`;
  const more = shown.total > shown.cells.length ? ` and ${shown.total - shown.cells.length} more` : '';
  // The change refused, in its words, when it is on this page.
  const refused = input.changes.find((candidate) => candidate.id === shown.changeId);
  // Cells as undo names them (Sheet1!B2); a deleted tab's undo names its title, taken since.
  const cellsOnly = shown.cells.every((cell) => A1_CELL.test(cell));
  const these = !cellsOnly
    ? 'Changed'
    : shown.total === 1
      ? 'This cell was changed'
      : `These ${shown.total} cells were changed`;
  return html`<div class="error" role="alert" id="undo-refused">
<p><strong>Not undone.</strong> ${these} since change <code>${shown.changeId}</code>${refused ? html` (${words(refused)}, spreadsheet <code>${refused.spreadsheetId}</code>)` : ''}: ${shown.cells.join(', ')}${more}.</p>
<p>Undo anyway puts back what ${!cellsOnly ? 'the change replaced' : shown.total === 1 ? 'it held before that change' : 'they held before that change'}; the later edits are lost.</p>
<p class="actions">${undoForm({ id: shown.changeId }, { csrf: input.undoCsrf, spreadsheetId: input.spreadsheetId }, html`<button type="submit" class="danger">Undo anyway</button>`, true)}
<a class="button" href="${input.spreadsheetId ? `/dashboard/activity?spreadsheet=${encodeURIComponent(input.spreadsheetId)}` : '/dashboard/activity'}">Keep the later edits</a></p>
</div>`;
}

function changeRow(change: ChangeSummary, input: ActivityInput): SafeHtml {
  return html`<tr>
<td>${displayTime(new Date(change.occurredAtMs).toISOString())}</td>
<td>${credential(change)}</td>
<td>${words(change)}<br>
<span class="muted"><code>${change.tool}</code>${change.undoesChangeId ? html`, undid <code>${change.undoesChangeId}</code>` : ''}</span></td>
<td>${status(change, input)}</td>
</tr>`;
}

/**
 * /dashboard/activity: the person's recent changes through Sheetgate (docs/design.md §11.8),
 * grouped per spreadsheet in the order of their newest change, with who made each (the API key
 * or app by name), what it changed in list_changes' words (proto describeChange) and its tool, and
 * an Undo button for each change that can be undone, or why it cannot be; above them, what the
 * last Undo came to.
 */
export function activityPage(input: ActivityInput): string {
  const groups = new Map<string, ChangeSummary[]>();
  for (const change of input.changes) {
    const group = groups.get(change.spreadsheetId) ?? [];
    group.push(change);
    groups.set(change.spreadsheetId, group);
  }
  const sections = [...groups].map(
    ([spreadsheetId, changes], index) => html`<section aria-labelledby="${`sheet-${index}`}">
<h2 id="${`sheet-${index}`}">Spreadsheet <code>${spreadsheetId || '(none)'}</code></h2>
<p>${spreadsheetLink(spreadsheetId)}${GOOGLE_ID.test(spreadsheetId) && !input.spreadsheetId ? html` · <a href="${`/dashboard/activity?spreadsheet=${encodeURIComponent(spreadsheetId)}`}">Only this spreadsheet</a>` : ''}</p>
<table>
<thead><tr><th scope="col">When</th><th scope="col">By</th><th scope="col">What changed</th><th scope="col">Undo</th></tr></thead>
<tbody>
${changes.map((change) => changeRow(change, input))}
</tbody>
</table>
</section>`,
  );
  const more = input.nextPageToken
    ? html`<p><a href="${`/dashboard/activity?${new URLSearchParams({ ...(input.spreadsheetId ? { spreadsheet: input.spreadsheetId } : {}), page: input.nextPageToken }).toString()}`}">Older changes</a></p>`
    : '';
  const body = html`<h1>Activity</h1>
<p>What your API keys and connected apps changed in your spreadsheets through Sheetgate, and what you undid here, newest first. Undo puts back what a change replaced, unless the cells were changed since. <a href="/dashboard">Back to your dashboard</a>${input.spreadsheetId ? html` · <a href="/dashboard/activity">Every spreadsheet</a>` : ''}</p>
${message(input)}
${sections.length ? sections : html`<p>No changes yet.</p>`}
${more}`;
  return renderPage({ title: 'Activity', body, account: input.account });
}
