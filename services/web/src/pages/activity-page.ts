import { ChangeCredentialKind, type ChangeSummary } from '@sheetgate/proto';
import { html, type SafeHtml, untrustedName } from '../html/html.ts';
import { type HeaderAccount, renderPage } from '../html/layout.ts';
import { displayTime } from '../html/time.ts';

export interface ActivityInput {
  account: HeaderAccount;
  changes: ChangeSummary[];
  /** The spreadsheet the list is narrowed to, if any. */
  spreadsheetId?: string | undefined;
  /** The next page's token, '' on the last page. */
  nextPageToken: string;
}

/** Google's spreadsheet ids are URL-safe; anything else is shown but never linked. */
const GOOGLE_ID = /^[A-Za-z0-9_-]{1,200}$/;

function spreadsheetLink(id: string): SafeHtml | string {
  return GOOGLE_ID.test(id)
    ? html`<a href="${`https://docs.google.com/spreadsheets/d/${encodeURIComponent(id)}/edit`}" rel="noopener noreferrer">Open spreadsheet ${id} in Google Sheets</a>`
    : '';
}

function credential(change: ChangeSummary): SafeHtml {
  const kind =
    change.credentialKind === ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_API_KEY
      ? 'API key'
      : change.credentialKind === ChangeCredentialKind.CHANGE_CREDENTIAL_KIND_APP
        ? 'App'
        : 'Dashboard';
  return change.credentialName
    ? html`${kind} ${untrustedName(change.credentialName)}`
    : html`${kind} <span class="muted">(no longer exists)</span>`;
}

function status(change: ChangeSummary): SafeHtml {
  if (change.undoneAtMs) return html`Undone ${displayTime(new Date(change.undoneAtMs).toISOString())}`;
  if (!change.undoable)
    return html`<span class="muted">${change.undoUnavailableReason || 'Cannot be undone.'}</span>`;
  return html`Can be undone: ask your agent to call <code>undo_change</code> with <code>${change.id}</code>`;
}

function changeRow(change: ChangeSummary): SafeHtml {
  const ranges = change.ranges.length ? change.ranges.join(', ') : '—';
  return html`<tr>
<td>${displayTime(new Date(change.occurredAtMs).toISOString())}</td>
<td>${credential(change)}</td>
<td><code>${change.tool}</code>${change.undoesChangeId ? html` <span class="muted">(undid ${change.undoesChangeId})</span>` : ''}</td>
<td>${ranges}</td>
<td>${change.cells.toLocaleString('en-US')}</td>
<td>${status(change)}</td>
</tr>`;
}

/**
 * /dashboard/activity: the person's recent changes through Sheetgate (docs/design.md §11.8),
 * grouped per spreadsheet in the order of their newest change, with who made each (the API key
 * or app by name), the tool, ranges and cells, and whether it can be undone.
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
<thead><tr><th scope="col">When</th><th scope="col">By</th><th scope="col">Tool</th><th scope="col">Ranges</th><th scope="col">Cells</th><th scope="col">Undo</th></tr></thead>
<tbody>
${changes.map(changeRow)}
</tbody>
</table>
</section>`,
  );
  const more = input.nextPageToken
    ? html`<p><a href="${`/dashboard/activity?${new URLSearchParams({ ...(input.spreadsheetId ? { spreadsheet: input.spreadsheetId } : {}), page: input.nextPageToken }).toString()}`}">Older changes</a></p>`
    : '';
  const body = html`<h1>Activity</h1>
<p>What your API keys and connected apps changed in your spreadsheets through Sheetgate, newest first. <a href="/dashboard">Back to your dashboard</a>${input.spreadsheetId ? html` · <a href="/dashboard/activity">Every spreadsheet</a>` : ''}</p>
${sections.length ? sections : html`<p>No changes yet.</p>`}
${more}`;
  return renderPage({ title: 'Activity', body, account: input.account });
}
