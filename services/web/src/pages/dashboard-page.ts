import {
  type ApiKey,
  type ConnectedApp,
  type CredentialChoices,
  DEFAULT_CREDENTIAL_CHOICES,
  DEFAULT_TOOLSETS,
  type GetGoogleConnectionResponse,
  type OutboundCeilingSettings,
  type PickedFile,
} from '@sheetgate/proto';
import { API_KEY_PLACEHOLDER, clientSetupBlocks, clientSetupList } from '../html/client-setup.ts';
import { choiceCheckboxes, choiceHints, choiceRowForm, choicesOf } from '../html/credential-choices.ts';
import { html, type SafeHtml, untrustedName } from '../html/html.ts';
import { renderPage } from '../html/layout.ts';
import { ceilingForbids } from '../html/outbound-ceiling-words.ts';
import { describeScopes, googleGrant, keyAccess } from '../html/scope-words.ts';
import { displayTime } from '../html/time.ts';
import { toolsetCheckboxes, toolsetTitles } from '../html/toolset-choices.ts';
import { googleSignInHref } from './login-page.ts';

/** The values of the "Create API key" form, echoed back with an error when auth refused them. */
export interface CreateKeyForm {
  name: string;
  expires: string;
  expiryDate: string;
  access: 'read' | 'write';
  /** The toolsets checked (docs/design.md §11, "Toolsets"). */
  toolsets: readonly string[];
  /** The two choices ticked (docs/design.md §11.10). */
  choices: CredentialChoices;
  error?: string;
}

export interface DashboardInput {
  baseUrl: string;
  account: { email: string; name: string; signOutCsrfToken: string };
  google: GetGoogleConnectionResponse;
  keys: ApiKey[];
  apps: ConnectedApp[];
  /** When a provider upgrade disconnected this person's apps ('' = never). */
  appsResetAt: string;
  createToken: string;
  /** CSRF tokens of the rows' choice forms (keys, apps). */
  keyChoicesToken: string;
  appChoicesToken: string;
  /** The operator's ceiling on outbound actions. */
  ceiling: OutboundCeilingSettings;
  /** A fresh value per rendered form: a re-sent form (reload after create) is recognised by it. */
  createNonce: string;
  /** The key just created: the only time its secret is ever on a page. */
  created?: { key: ApiKey; secret: string } | undefined;
  createForm?: CreateKeyForm | undefined;
  notice?: string | undefined;
  /** GOOGLE_SCOPE_MODE=picked-files: the files the person chose, and what the Picker needs. */
  picked?: PickedFilesInput | undefined;
}

/** The "Spreadsheets Sheetgate can reach" section (picked-files mode). */
export interface PickedFilesInput {
  files: PickedFile[];
  /** Absent when the Picker cannot open: Google not connected with drive.file, or not set up. */
  picker?:
    | { apiKey: string; appId: string; scriptUrl: string; tokenCsrf: string; chooseCsrf: string }
    | undefined;
  /** Why the Picker cannot open, for the person. */
  unavailable?: string | undefined;
  forgetCsrf: string;
}

export const EXPIRY_CHOICES = [
  { value: 'never', label: 'Never' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '365 days' },
  { value: 'date', label: 'On a date' },
] as const;

// A Map, not an object literal: `?notice=constructor` must not find Object.prototype's members.
const NOTICES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    key_revoked: 'The API key was revoked. It stops working with the very next request.',
    key_already_created:
      'That form was already sent, so no new key was created and the key is not shown again. If you did not copy it, revoke it and create a new one.',
    app_disconnected: 'The app was disconnected: its access and refresh tokens no longer work.',
    nothing_to_revoke: 'That API key was already revoked or does not exist.',
    nothing_to_disconnect: 'That app was already disconnected.',
    files_chosen: 'Sheetgate can now reach the spreadsheets you chose.',
    files_refused: 'Those files could not be recorded. Choose them again.',
    file_forgotten:
      'Sheetgate forgot that spreadsheet: it is no longer listed here. Google keeps its access to the file until you remove it in your Google Account.',
    nothing_to_forget: 'That spreadsheet was not in your list.',
    key_choices_saved: "The key's choices were saved. They hold from its next call.",
    key_choices_not_saved: 'That API key was revoked or does not exist. Nothing was changed.',
    app_choices_saved: "The app's choices were saved. They hold from its next call, without reconnecting.",
    app_choices_not_saved: 'That app is not connected. Nothing was changed.',
  }),
);

/** "Read and edit your Google Sheets" → "read and edit your Google Sheets" (names keep their capitals). */
const lowerFirst = (words: string) => words.charAt(0).toLowerCase() + words.slice(1);

const RECONNECT = html`<a class="button" href="${googleSignInHref('/dashboard')}">Reconnect Google</a>`;

function googleSection(google: GetGoogleConnectionResponse): SafeHtml {
  const grant = googleGrant(google.grantedScopes, google.scopeMode);
  const missing = grant.filter((entry) => entry.needed && !entry.granted);
  let status: SafeHtml;
  if (google.status === 'GOOGLE_CONNECTION_STATUS_CONNECTED') {
    // Whose domain is "inside" for outbound actions (issue 37): the Workspace domain Google
    // named at sign-in, or none for a personal account, where everyone else is outside; nothing
    // said while not known (no sign-in since Sheetgate began keeping it).
    const account =
      google.hostedDomain === undefined
        ? ''
        : google.hostedDomain
          ? html` (Workspace domain <strong>${google.hostedDomain}</strong>)`
          : html` (personal Google account)`;
    status = html`<p>Connected as <strong>${google.email}</strong>${account}.</p>
${
  google.partial || missing.length > 0
    ? html`<div class="warning" role="alert"><p><strong>Google gave Sheetgate only part of the access it needs.</strong>
Missing: ${missing.map((entry, index) => html`${index ? '; ' : ''}${lowerFirst(entry.words)}`)}.
Tools that need it will fail. Reconnect Google and leave every box ticked.</p></div>`
    : ''
}
<h3>What Google allows Sheetgate to do</h3>
<ul class="scopes">
${grant.map((entry) => html`<li>${entry.granted ? 'Allowed' : 'Not allowed'}: ${entry.words}</li>`)}
</ul>`;
  } else if (google.status === 'GOOGLE_CONNECTION_STATUS_REAUTH_REQUIRED') {
    status = html`<div class="warning" role="alert"><p><strong>Google no longer accepts Sheetgate's access${
      google.email ? html` for ${google.email}` : ''
    }.</strong> It was revoked or has expired. Spreadsheet tools fail until you reconnect Google.</p></div>`;
  } else {
    status = html`<div class="warning"><p>No Google account is connected. Spreadsheet tools fail until you connect one.</p></div>`;
  }
  return html`<section aria-labelledby="google-heading">
<h2 id="google-heading">Google connection</h2>
${status}
<p class="actions">${RECONNECT}</p>
<p class="hint">${
    google.scopeMode === 'picked-files'
      ? 'Sheetgate never asks for access to your whole Drive: only the spreadsheets you choose for it below and the files it creates.'
      : 'Sheetgate never asks for full access to your Drive: only your spreadsheets and the files it creates or opens.'
  }</p>
</section>`;
}

/** Where a person removes an app's access to their files at Google. */
const GOOGLE_CONNECTIONS_URL = 'https://myaccount.google.com/connections';

function pickedFilesSection(picked: PickedFilesInput): SafeHtml {
  const picker = picked.picker;
  const choose = picker
    ? html`<div id="picker" data-script-url="${picker.scriptUrl}" data-api-key="${picker.apiKey}" data-app-id="${picker.appId}"
 data-token-csrf="${picker.tokenCsrf}">
<p class="actions"><button type="button" class="primary" data-picker-open hidden>Choose spreadsheets</button></p>
<p id="picker-needs-script" class="muted">Choosing spreadsheets needs JavaScript: the Google Picker runs in this page.</p>
<p id="picker-status" role="status" class="muted"></p>
<form id="picked-form" method="post" action="/dashboard/picked-files" hidden>
<input type="hidden" name="csrf" value="${picker.chooseCsrf}">
</form>
</div>`
    : html`<p class="muted">${picked.unavailable ?? 'The Google Picker is not available.'}</p>`;
  const list =
    picked.files.length === 0
      ? html`<p class="muted">You have not chosen any spreadsheets yet. Sheetgate reaches only the ones it created.</p>`
      : html`<div class="table-wrap" role="region" aria-labelledby="picked-caption" tabindex="0"><table class="stack">
<caption id="picked-caption" class="muted">Spreadsheets you chose</caption>
<thead><tr><th scope="col">Name</th><th scope="col">File id</th><th scope="col">Chosen</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>
${picked.files.map(
  (file) => html`<tr data-file-id="${file.fileId}">
<td data-label="Name">${untrustedName(file.name)}</td>
<td data-label="File id"><code>${file.fileId}</code></td>
<td data-label="Chosen">${displayTime(file.pickedAt)}</td>
<td data-label="Action"><form method="post" action="/dashboard/picked-files/remove">
<input type="hidden" name="csrf" value="${picked.forgetCsrf}">
<input type="hidden" name="file" value="${file.fileId}">
<button type="submit" class="danger" aria-label="${`Remove ${file.name}`}">Remove</button></form></td>
</tr>`,
)}
</tbody></table></div>`;
  return html`<section aria-labelledby="picked-heading">
<h2 id="picked-heading">Spreadsheets Sheetgate can reach</h2>
<p>In this deployment Sheetgate reaches only the spreadsheets it created and those you choose here with the Google Picker.
A tool that meets any other spreadsheet tells you to choose it.</p>
${choose}
${list}
<p class="hint">Remove makes Sheetgate forget a spreadsheet here. Google keeps Sheetgate's access to the files you chose until
you remove Sheetgate under <a href="${GOOGLE_CONNECTIONS_URL}" rel="noopener noreferrer">Third-party apps &amp; services in your Google Account</a>,
which ends its access to every file (reconnect Google afterwards to use Sheetgate again).</p>
</section>`;
}

function copyButton(target: string, label: string): SafeHtml {
  return html`<p><button type="button" data-copy="${target}" data-status="${target}-status" hidden>${label}</button>
<span id="${`${target}-status`}" role="status" class="muted"></span></p>`;
}

function createdKeyPanel(baseUrl: string, created: { key: ApiKey; secret: string }): SafeHtml {
  const blocks = clientSetupBlocks({
    endpoint: `${baseUrl}/api/mcp`,
    credential: { apiKey: created.secret },
  });
  return html`<section aria-labelledby="new-key-heading" class="card">
<h2 id="new-key-heading">Your new API key: ${untrustedName(created.key.name)}</h2>
<div class="warning" role="alert"><p><strong>Copy it now: it will not be shown again.</strong> Sheetgate keeps only a
hash of it. Keep it in a password manager or your CI's secret store; never put it in a URL, an issue, a log or a chat.</p></div>
<code id="new-api-key" class="secret" data-testid="new-api-key">${created.secret}</code>
${copyButton('new-api-key', 'Copy key')}
<section aria-labelledby="new-key-clients-heading">
<h3 id="new-key-clients-heading">Connect a client with this key</h3>
<p>Each block below holds this key: paste it where it says, and keep it out of version control.</p>
${clientSetupList(blocks, 'new-key')}
</section>
</section>`;
}

/** "Connect a client": every client's setup, with OAuth (no key) or with a key put in later. */
function connectSection(baseUrl: string): SafeHtml {
  const endpoint = `${baseUrl}/api/mcp`;
  return html`<section aria-labelledby="connect-heading">
<h2 id="connect-heading">Connect a client</h2>
<p>Sheetgate's MCP endpoint is <code>${endpoint}</code>. Clients that sign in with OAuth need no key: they open
Sheetgate in your browser and you allow them. Scripts, and clients you would rather give a key, send it in the
<code>x-api-key</code> header.</p>
<section aria-labelledby="connect-oauth-heading">
<h3 id="connect-oauth-heading">With OAuth (no key)</h3>
${clientSetupList(clientSetupBlocks({ endpoint, credential: 'oauth' }), 'setup-oauth', ' for OAuth')}
</section>
<section aria-labelledby="connect-key-heading">
<h3 id="connect-key-heading">With an API key</h3>
<p>Put a key you created in place of <code>${API_KEY_PLACEHOLDER}</code>. A new key is shown once, with these blocks
filled in.</p>
${clientSetupList(clientSetupBlocks({ endpoint, credential: 'api-key-placeholder' }), 'setup-key', ' for an API key')}
</section>
</section>`;
}

function createKeyForm(input: DashboardInput): SafeHtml {
  const form = input.createForm ?? {
    name: '',
    expires: 'never',
    expiryDate: '',
    access: 'write',
    toolsets: DEFAULT_TOOLSETS,
    choices: { ...DEFAULT_CREDENTIAL_CHOICES },
  };
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return html`<form method="post" action="/dashboard/api-keys" aria-labelledby="create-key-heading" novalidate>
<h3 id="create-key-heading">Create API key</h3>
${form.error ? html`<div class="error" role="alert" id="create-key-error"><p>${form.error}</p></div>` : ''}
<input type="hidden" name="csrf" value="${input.createToken}">
<input type="hidden" name="nonce" value="${input.createNonce}">
<label for="key-name">Name</label>
<input type="text" id="key-name" name="name" value="${form.name}" maxlength="100" required autocomplete="off"
 aria-describedby="key-name-hint"${form.error ? html` aria-invalid="true"` : ''}>
<p id="key-name-hint" class="hint">So you recognise it later, for example "CI pipeline".</p>
<label for="key-expires">Expires</label>
<select id="key-expires" name="expires">
${EXPIRY_CHOICES.map(
  (choice) =>
    html`<option value="${choice.value}"${choice.value === form.expires ? html` selected` : ''}>${choice.label}</option>`,
)}
</select>
<label for="key-expiry-date">Expiry date (for "On a date")</label>
<input type="date" id="key-expiry-date" name="expiry_date" value="${form.expiryDate}" min="${tomorrow}">
<fieldset>
<legend>Access</legend>
<label><input type="radio" name="access" value="read"${form.access === 'read' ? html` checked` : ''}> Read only</label>
<label><input type="radio" name="access" value="write"${form.access === 'write' ? html` checked` : ''}> Read and write</label>
</fieldset>
${toolsetCheckboxes(form.toolsets, 'The tools the key offers a model; fewer tools cost each conversation less.')}
${choiceCheckboxes(form.choices, 'You can change these on this dashboard at any time.')}
<div class="actions"><button type="submit" class="primary">Create API key</button></div>
</form>`;
}

function expiryCell(iso: string): SafeHtml | string {
  if (!iso) return 'Never';
  const expired = new Date(iso).getTime() <= Date.now();
  return expired ? html`Expired ${displayTime(iso)}` : displayTime(iso);
}

function keysSection(input: DashboardInput): SafeHtml {
  const keys = input.keys.filter((key) => !key.revokedAt);
  const table =
    keys.length === 0
      ? html`<p class="muted">You have no API keys.</p>`
      : html`<div class="table-wrap" role="region" aria-labelledby="keys-caption" tabindex="0"><table class="stack">
<caption id="keys-caption" class="muted">Your API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Access</th><th scope="col">Toolsets</th><th scope="col">Choices</th>
<th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>
${keys.map(
  (key) => html`<tr data-key-id="${key.id}">
<td data-label="Name">${untrustedName(key.name)}</td>
<td data-label="Prefix"><code>${key.displayPrefix}…</code></td>
<td data-label="Access">${keyAccess(key.scopes)}</td>
<td data-label="Toolsets">${toolsetTitles(key.toolsets)}</td>
<td data-label="Choices">${choiceRowForm({
    action: '/dashboard/api-keys/choices',
    csrf: input.keyChoicesToken,
    idField: 'key',
    id: key.id,
    name: key.name,
    choices: choicesOf(key),
  })}</td>
<td data-label="Created">${displayTime(key.createdAt)}</td>
<td data-label="Last used">${displayTime(key.lastUsedAt)}</td>
<td data-label="Expires">${expiryCell(key.expiresAt)}</td>
<td data-label="Action"><form method="get" action="/dashboard/api-keys/revoke">
<input type="hidden" name="key" value="${key.id}"><button type="submit" class="danger">Revoke</button></form></td>
</tr>`,
)}
</tbody></table></div>
${choiceHints()}`;
  return html`<section aria-labelledby="keys-heading">
<h2 id="keys-heading">API keys</h2>
<p>Scripts and MCP clients that take a headers map send a key in the <code>x-api-key</code> header to
<code>${input.baseUrl}/api/mcp</code>.</p>
${table}
${createKeyForm(input)}
</section>`;
}

const UPGRADE_NOTICE_DAYS = 60;

/**
 * After a provider upgrade (an import from the retired provider, or an OAuth reset) every app the
 * person had connected must be added again; they see why for a while after it.
 */
function upgradeNotice(appsResetAt: string): SafeHtml | '' {
  const resetAt = appsResetAt ? Date.parse(appsResetAt) : Number.NaN;
  if (Number.isNaN(resetAt)) return '';
  if (Date.now() - resetAt > UPGRADE_NOTICE_DAYS * 86_400_000) return '';
  return html`<div class="notice" role="note"><p>Sheetgate's sign-in for apps was upgraded on ${displayTime(appsResetAt, '')}.
Apps connected before the upgrade need to be added again: remove Sheetgate from the app (Claude, Cursor, VS Code…)
and add it once more. Your API keys and Google connection keep working.</p></div>`;
}

function appsSection(input: DashboardInput): SafeHtml {
  const { apps, appsResetAt } = input;
  const body =
    apps.length === 0
      ? html`<p class="muted">No app is connected. Apps appear here after you allow them on the consent screen.</p>`
      : html`<div class="table-wrap" role="region" aria-labelledby="apps-caption" tabindex="0"><table class="stack">
<caption id="apps-caption" class="muted">Apps you allowed</caption>
<thead><tr><th scope="col">App</th><th scope="col">Redirect host</th><th scope="col">Access</th><th scope="col">Toolsets</th><th scope="col">Choices</th><th scope="col">First used</th>
<th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>
${apps.map(
  (app) => html`<tr data-client-id="${app.clientId}">
<td data-label="App">${untrustedName(app.clientName || app.clientId)}</td>
<td data-label="Redirect host"><code>${app.redirectHost}</code></td>
<td data-label="Access"><ul class="scopes">${describeScopes(app.scopes).map(({ words }) => html`<li>${words}</li>`)}</ul></td>
<td data-label="Toolsets">${toolsetTitles(app.toolsets)}</td>
<td data-label="Choices">${choiceRowForm({
    action: '/dashboard/apps/choices',
    csrf: input.appChoicesToken,
    idField: 'client',
    id: app.clientId,
    name: app.clientName || app.clientId,
    choices: choicesOf(app),
  })}</td>
<td data-label="First used">${displayTime(app.firstUsedAt, '—')}</td>
<td data-label="Last used">${displayTime(app.lastUsedAt, '—')}</td>
<td data-label="Action"><form method="get" action="/dashboard/apps/disconnect">
<input type="hidden" name="client" value="${app.clientId}"><button type="submit" class="danger">Disconnect</button></form></td>
</tr>`,
)}
</tbody></table></div>
${choiceHints()}`;
  return html`<section aria-labelledby="apps-heading">
<h2 id="apps-heading">Connected apps</h2>
${upgradeNotice(appsResetAt)}
${body}
</section>`;
}

/** What the operator forbids every key and app; nothing at all when it forbids nothing. */
function ceilingSection(ceiling: OutboundCeilingSettings): SafeHtml | '' {
  const forbidden = ceilingForbids(ceiling);
  if (forbidden.length === 0) return '';
  return html`<section aria-labelledby="ceiling-heading">
<h2 id="ceiling-heading">What this server does not allow</h2>
<p>Whatever you allow a key or an app below, this server's operator does not allow any of them:</p>
<ul>
${forbidden.map((words) => html`<li>${words}</li>`)}
</ul>
</section>`;
}

export function dashboardPage(input: DashboardInput): string {
  const notice = input.notice ? NOTICES.get(input.notice) : undefined;
  const body = html`<h1>Your dashboard</h1>
${notice ? html`<div class="notice" role="status"><p>${notice}</p></div>` : ''}
${input.created ? createdKeyPanel(input.baseUrl, input.created) : ''}
${googleSection(input.google)}
${input.picked ? pickedFilesSection(input.picked) : ''}
${ceilingSection(input.ceiling)}
${keysSection(input)}
${connectSection(input.baseUrl)}
${appsSection(input)}
<section aria-labelledby="activity-heading">
<h2 id="activity-heading">Activity</h2>
<p>What your API keys and connected apps changed in your spreadsheets through Sheetgate, and which changes can be undone: <a href="/dashboard/activity">see your activity</a>.</p>
</section>
<section aria-labelledby="session-heading">
<h2 id="session-heading">Session</h2>
<p>Signing out ends this browser's session; the next app you connect asks who is signing in. Keys and connected apps keep working.</p>
</section>`;
  return renderPage({
    title: 'Dashboard',
    body,
    account: input.account,
    // The Copy buttons of "Connect a client" are on every dashboard.
    copyScript: true,
    pickerScript: Boolean(input.picked?.picker),
  });
}
