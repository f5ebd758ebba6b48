import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { approvalLinkPath, createCallConsentClient } from '@sheetgate/proto';
import { readJson, type Stack, startStack } from '@sheetgate/test-harness';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFiles } from './support/google-emulator.ts';
import { RecordingOAuthProvider } from './support/oauth-client.ts';
import { accountService } from './support/people.ts';
import {
  chromiumMissing,
  connectThroughBrowser,
  createKeyInDashboard,
  launchBrowser,
  newPerson,
  type Person,
  sessionCookieOf,
  signInToDashboard,
} from './support/person-in-browser.ts';

// Two people with the same spreadsheet names, the same API key name and the same OAuth client
// name: neither can see or touch the other's files through any tool, with their key or their
// OAuth token, nor revoke or disconnect the other's key or app through the dashboard's forms.
// Nor answer the other's call approval, nor change their key's or app's choices.
// Everything is set up as the people would: signed in with Google at the emulator's chooser,
// keys made on the dashboard, the app authorized on the consent page, all in Chromium.

const missing = chromiumMissing();
if (missing) console.warn(`isolation tests skipped: ${missing}`);

const AGENT_APP = 'https://sheets-agent.example';

interface Someone extends Person {
  email: string;
  app: RecordingOAuthProvider;
  withKey: Client;
  withToken: Client;
  spreadsheetId: string;
  csvId: string;
  sheetId: number;
}

let stack: Stack;
let chromium: Browser;
let alice: Someone;
let bob: Someone;

/** The same names for both; only the cells say whose file it is. */
function files(owner: string) {
  return [
    {
      name: 'Team budget',
      sheets: [
        {
          title: 'Plan',
          values: [
            ['Owner', 'Amount'],
            [`${owner} private figure`, 4242],
          ],
        },
        { title: 'Notes', values: [[`${owner} private note`]] },
      ],
    },
    {
      name: 'Team budget.csv',
      mimeType: 'text/csv',
      contentBase64: Buffer.from(`Owner,Amount\n${owner} private csv,1\n`).toString('base64'),
    },
  ];
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

function structured<T>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

async function keyClient(secret: string): Promise<Client> {
  const client = new Client({ name: 'sheetgate-e2e-script', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${stack.baseUrl}/api/mcp`), {
      requestInit: { headers: { 'x-api-key': secret } },
    }),
  );
  return client;
}

/** Signs in, makes the key "Automation" on the dashboard and authorizes the app "Sheets Agent", both with every toolset. */
async function arrive(email: string, owner: string): Promise<Someone> {
  const [spreadsheetId, csvId] = await seedFiles(stack, email, files(owner));
  const person = await newPerson(chromium, [AGENT_APP]);
  await signInToDashboard(person.page, stack.baseUrl, email);
  const withKey = await keyClient(
    await createKeyInDashboard(person.page, stack.baseUrl, 'Automation', 'every'),
  );
  const app = new RecordingOAuthProvider({
    redirectUrl: `${AGENT_APP}/oauth/callback`,
    clientName: 'Sheets Agent',
  });
  const { client: withToken } = await connectThroughBrowser(`${stack.baseUrl}/api/mcp`, app, {
    ...person,
    email,
    toolsets: 'every',
  });
  const described = structured<{ sheets: Array<{ sheetId: number; title: string }> }>(
    await call(withKey, 'get_spreadsheet', { spreadsheetId }),
  );
  const sheetId = described.sheets.find((sheet) => sheet.title === 'Plan')!.sheetId;
  return { ...person, email, app, withKey, withToken, spreadsheetId: spreadsheetId!, csvId: csvId!, sheetId };
}

/** Everything bob can see of his files, as bob. */
async function bobsFiles() {
  const described = structured<{ sheets: unknown[] }>(
    await call(bob.withKey, 'get_spreadsheet', { spreadsheetId: bob.spreadsheetId }),
  );
  const values = structured<{ valueRanges: unknown[] }>(
    await call(bob.withKey, 'read_ranges', {
      spreadsheetId: bob.spreadsheetId,
      ranges: ['Plan!A1:Z100', 'Notes!A1:Z100'],
    }),
  );
  const listed = structured<{ spreadsheets: unknown[] }>(await call(bob.withKey, 'list_spreadsheets', {}));
  return { sheets: described.sheets, values: values.valueRanges, spreadsheets: listed.spreadsheets };
}

beforeAll(async () => {
  if (missing) return;
  [stack, chromium] = await Promise.all([startStack(), launchBrowser()]);
  alice = await arrive('alice@example.com', 'Alice');
  bob = await arrive('bob@example.com', 'Bob');
}, 120_000);

afterAll(async () => {
  for (const person of [alice, bob]) {
    await person?.withKey.close();
    await person?.withToken.close();
  }
  await chromium?.close();
  await stack?.stop();
});

describe.skipIf(Boolean(missing))(
  'two people with identical names for everything',
  { timeout: 60_000 },
  () => {
    it('have distinct files, keys and clients behind the same names', async () => {
      expect(alice.spreadsheetId).not.toBe(bob.spreadsheetId);
      expect(alice.app.clientInformation()!.client_id).not.toBe(bob.app.clientInformation()!.client_id);
      for (const [person, owner] of [
        [alice, 'Alice'],
        [bob, 'Bob'],
      ] as const) {
        for (const client of [person.withKey, person.withToken]) {
          const listed = structured<{ spreadsheets: Array<{ spreadsheetId: string; name: string }> }>(
            await call(client, 'list_spreadsheets', {}),
          );
          expect(listed.spreadsheets.map(({ spreadsheetId, name }) => ({ spreadsheetId, name }))).toEqual([
            { spreadsheetId: person.spreadsheetId, name: 'Team budget' },
          ]);
          const found = structured<{ matches: Array<{ value: string }> }>(
            await call(client, 'find_in_spreadsheet', {
              spreadsheetId: person.spreadsheetId,
              query: 'private',
            }),
          );
          expect(found.matches.map((match) => match.value)).toEqual([
            `${owner} private figure`,
            `${owner} private note`,
          ]);
        }
      }
    });

    it("every tool, with alice's key and with alice's OAuth token, is refused on bob's files, and bob's files are unchanged", async () => {
      const before = await bobsFiles();
      const { spreadsheetId, sheetId, csvId } = bob;
      const attempts: Array<[string, Record<string, unknown>]> = [
        ['get_spreadsheet', { spreadsheetId }],
        ['read_range', { spreadsheetId, range: 'Plan!A1:B2' }],
        ['read_ranges', { spreadsheetId, ranges: ['Plan!A1:B2', 'Notes!A1'] }],
        ['find_in_spreadsheet', { spreadsheetId, query: 'private' }],
        ['evaluate_formulas', { spreadsheetId, formulas: ['=Plan!A1'] }],
        // Imported into alice's own spreadsheet, bob's rows would pass through no model at all.
        [
          'evaluate_formulas',
          {
            spreadsheetId: alice.spreadsheetId,
            formulas: ['=COUNTA(Bobs!A:A)'],
            imports: [{ name: 'Bobs', spreadsheetId, range: 'Plan!A:B' }],
          },
        ],
        ['read_records', { spreadsheetId, range: 'Plan' }],
        ['read_cell_details', { spreadsheetId, range: 'Plan!A1:B2' }],
        ['read_formats', { spreadsheetId, range: 'Plan!A1:B2' }],
        ['set_notes', { spreadsheetId, notes: [{ range: 'Plan!A1', note: 'Mallory' }] }],
        ['write_range', { spreadsheetId, range: 'Plan!A2', values: [['Mallory']] }],
        ['write_ranges', { spreadsheetId, data: [{ range: 'Plan!A2', values: [['Mallory']] }] }],
        ['append_rows', { spreadsheetId, range: 'Plan!A:B', values: [['Mallory', 1]] }],
        ['clear_range', { spreadsheetId, range: 'Plan!A1:B2' }],
        ['insert_dimension', { spreadsheetId, sheetId, dimension: 'ROWS', startIndex: 0, count: 1 }],
        ['delete_dimension', { spreadsheetId, sheetId, dimension: 'ROWS', startIndex: 0, endIndex: 1 }],
        ['add_sheet', { spreadsheetId, title: 'Mallory' }],
        ['rename_sheet', { spreadsheetId, sheetId, title: 'Mallory' }],
        ['duplicate_sheet', { spreadsheetId, sheetId, newTitle: 'Mallory' }],
        ['delete_sheet', { spreadsheetId, sheetId }],
        ['format_range', { spreadsheetId, range: 'Plan!A1:B2', bold: true }],
        [
          'batch_update',
          {
            spreadsheetId,
            requests: [{ findReplace: { find: 'Bob', replacement: 'Mallory', allSheets: true } }],
          },
        ],
        ['set_data_validation', { spreadsheetId, range: 'Plan!A1', condition: 'BOOLEAN' }],
        [
          'add_conditional_format',
          { spreadsheetId, ranges: ['Plan!A1'], condition: 'NOT_BLANK', format: { bold: true } },
        ],
        ['list_conditional_formats', { spreadsheetId }],
        ['update_conditional_format', { spreadsheetId, sheetId, index: 0, newIndex: 0 }],
        ['delete_conditional_format', { spreadsheetId, sheetId, index: 0 }],
        ['add_named_range', { spreadsheetId, name: 'Mallory', range: 'Plan!A1' }],
        ['list_named_ranges', { spreadsheetId }],
        ['update_named_range', { spreadsheetId, name: 'Mallory', newName: 'Eve' }],
        ['delete_named_range', { spreadsheetId, name: 'Mallory' }],
        ['add_protected_range', { spreadsheetId, range: 'Plan' }],
        ['list_protected_ranges', { spreadsheetId }],
        ['delete_protected_range', { spreadsheetId, protectedRangeId: 1 }],
        ['add_chart', { spreadsheetId, type: 'column', range: 'Plan!A1:B2', title: 'Mallory' }],
        ['list_charts', { spreadsheetId }],
        ['update_chart', { spreadsheetId, chartId: 1, title: 'Mallory' }],
        ['delete_chart', { spreadsheetId, chartId: 1 }],
        [
          'set_pivot_table',
          { spreadsheetId, anchor: 'Notes!D1', source: 'Plan!A1:B2', rows: [{ column: 'A' }] },
        ],
        ['set_basic_filter', { spreadsheetId, range: 'Plan!A1:B2' }],
        ['clear_basic_filter', { spreadsheetId, sheetId }],
        ['list_filters', { spreadsheetId }],
        ['add_filter_view', { spreadsheetId, title: 'Mallory', range: 'Plan!A1:B2' }],
        ['update_filter_view', { spreadsheetId, filterViewId: 1, title: 'Mallory' }],
        ['delete_filter_view', { spreadsheetId, filterViewId: 1 }],
        ['add_table', { spreadsheetId, name: 'Mallory', range: 'Plan!A1:B2' }],
        ['list_tables', { spreadsheetId }],
        ['update_table', { spreadsheetId, table: 'Plan', newName: 'Mallory' }],
        ['delete_table', { spreadsheetId, table: 'Plan' }],
        ['copy_range', { spreadsheetId, source: 'Plan!A1:B2', destination: 'Notes!C1' }],
        ['autofill', { spreadsheetId, source: 'Plan!B1:B2', direction: 'down', count: 2 }],
        ['sort_range', { spreadsheetId, range: 'Plan!A1:B2', sortBy: [{ column: 'B' }] }],
        ['find_replace', { spreadsheetId, find: 'Bob', replacement: 'Mallory' }],
        ['remove_duplicates', { spreadsheetId, range: 'Plan' }],
        ['trim_whitespace', { spreadsheetId, range: 'Plan' }],
        ['change_case', { spreadsheetId, range: 'Plan', case: 'upper' }],
        ['merge_cells', { spreadsheetId, range: 'Plan!A1:B1' }],
        ['unmerge_cells', { spreadsheetId, range: 'Plan!A1:B1' }],
        ['freeze', { spreadsheetId, sheetId, rows: 1 }],
        [
          'set_dimension_properties',
          { spreadsheetId, sheetId, dimension: 'COLUMNS', startIndex: 0, endIndex: 1, fitToData: true },
        ],
        ['copy_sheet_to', { spreadsheetId, sheetId, destinationSpreadsheetId: spreadsheetId }],
        ['convert_file', { fileId: spreadsheetId, to: 'csv' }],
        ['convert_file', { fileId: csvId, to: 'spreadsheet' }],
        ['trash_file', { fileId: spreadsheetId }],
        ['trash_file', { fileId: csvId }],
        ['copy_spreadsheet', { spreadsheetId }],
        [
          'share_file',
          { fileId: spreadsheetId, type: 'user', role: 'writer', emailAddress: 'mallory@example.com' },
        ],
        ['list_permissions', { fileId: spreadsheetId }],
        ['update_permission', { fileId: spreadsheetId, permissionId: 'anyoneWithLink', role: 'writer' }],
        ['remove_permission', { fileId: spreadsheetId, permissionId: 'anyoneWithLink' }],
        ['list_comments', { fileId: spreadsheetId }],
        ['add_comment', { fileId: spreadsheetId, content: 'Mallory was here' }],
        ['reply_to_comment', { fileId: spreadsheetId, commentId: 'c1', content: 'Mallory was here' }],
        ['resolve_comment', { fileId: spreadsheetId, commentId: 'c1' }],
      ];
      // Every tool that names a file is attempted: a new one must be added here.
      const { tools } = await alice.withKey.listTools();
      // list_changes and undo_change take a spreadsheetId only to pick from the caller's own
      // journal: on bob's file they find none of alice's changes and say nothing of bob's
      // (asserted below).
      const namingAFile = tools
        .filter((tool) =>
          ['spreadsheetId', 'fileId'].some((field) => field in (tool.inputSchema.properties ?? {})),
        )
        .map((tool) => tool.name)
        .filter((name) => name !== 'list_changes' && name !== 'undo_change');
      for (const client of [alice.withKey, alice.withToken]) {
        const listed = await call(client, 'list_changes', { spreadsheetId });
        expect(listed.isError).not.toBe(true);
        expect(listed.structuredContent).toEqual({ changes: [], nextPageToken: null });
        const undone = await call(client, 'undo_change', { spreadsheetId });
        expect(undone.isError).toBe(true);
        expect(JSON.stringify(undone.content)).toContain(
          `No change of this credential to spreadsheet ${spreadsheetId} was found that can be undone`,
        );
      }
      expect([...new Set(attempts.map(([name]) => name))].sort()).toEqual(namingAFile.sort());

      for (const [credential, client] of [
        ['API key', alice.withKey],
        ['OAuth token', alice.withToken],
      ] as const) {
        for (const [name, args] of attempts) {
          const result = await call(client, name, args);
          const said = JSON.stringify(result);
          expect(result.isError, `${credential} ${name}: ${said}`).toBe(true);
          expect(said, `${credential} ${name}`).toMatch(/not found/i);
          expect(said, `${credential} ${name}`).not.toMatch(/Bob private/);
        }
      }

      expect(await bobsFiles()).toEqual(before);
      // Nothing of bob's was converted into alice's Drive either.
      const alicesList = structured<{ spreadsheets: Array<{ spreadsheetId: string }> }>(
        await call(alice.withKey, 'list_spreadsheets', {}),
      );
      expect(alicesList.spreadsheets.map((sheet) => sheet.spreadsheetId)).toEqual([alice.spreadsheetId]);
    });

    it("the dashboard's revoke and disconnect forms, sent from alice's session with bob's key id and client id, change nothing; bob's key and app keep working", async () => {
      const accounts = accountService(stack);
      const bobsSession = await sessionCookieOf(bob.context, stack.baseUrl);
      const bobsKey = (await accounts.listApiKeys({ sessionCookie: bobsSession })).keys.find(
        (key) => key.name === 'Automation',
      )!;
      const bobsClientId = bob.app.clientInformation()!.client_id;
      const { page } = alice;

      // The confirmation pages do not show bob's key or app to alice.
      await page.goto(`${stack.baseUrl}/dashboard/api-keys/revoke?key=${encodeURIComponent(bobsKey.id)}`);
      expect(new URL(page.url()).searchParams.get('notice')).toBe('nothing_to_revoke');
      await page.goto(
        `${stack.baseUrl}/dashboard/apps/disconnect?client=${encodeURIComponent(bobsClientId)}`,
      );
      expect(new URL(page.url()).searchParams.get('notice')).toBe('nothing_to_disconnect');

      // Alice's own confirmation forms (with her valid CSRF tokens), their hidden id changed to bob's.
      for (const { row, action, field, id, notice } of [
        { row: 'Automation', action: 'Revoke', field: 'key', id: bobsKey.id, notice: 'nothing_to_revoke' },
        {
          row: 'Sheets Agent',
          action: 'Disconnect',
          field: 'client',
          id: bobsClientId,
          notice: 'nothing_to_disconnect',
        },
      ]) {
        await page.goto(`${stack.baseUrl}/dashboard`);
        await page.locator('tr', { hasText: row }).getByRole('button', { name: action }).click();
        await page.locator(`form[method=post] input[name=${field}]`).evaluate((input, value) => {
          (input as { value: string }).value = value;
        }, id);
        await page.getByRole('button', { name: action }).click();
        await page.waitForURL(/\/dashboard\?notice=/);
        expect(new URL(page.url()).searchParams.get('notice'), action).toBe(notice);
        // Alice's own key and app are still listed: the form acted on nothing.
        expect(await page.locator('tr', { hasText: row }).count(), action).toBe(1);
      }

      const { keys } = await accounts.listApiKeys({ sessionCookie: bobsSession });
      expect(keys.find((key) => key.id === bobsKey.id)?.revokedAt).toBe('');
      const { apps } = await accounts.listConnectedApps({ sessionCookie: bobsSession });
      expect(apps.map((app) => app.clientId)).toContain(bobsClientId);
      accounts.close();

      // Bob's key, his access token, and his refresh token all still work.
      expect((await call(bob.withKey, 'list_spreadsheets', {})).isError).toBeFalsy();
      expect((await call(bob.withToken, 'list_spreadsheets', {})).isError).toBeFalsy();
      const refreshed = await fetch(`${stack.baseUrl}/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: bob.app.tokens()!.refresh_token!,
          client_id: bobsClientId,
        }),
      });
      expect(refreshed.status).toBe(200);
      bob.app.saveTokens(await readJson(refreshed));
      expect((await call(bob.withToken, 'list_spreadsheets', {})).isError).toBeFalsy();
    });

    it("the dashboard's choice forms and the call approval page, from alice's session with bob's key, app and approval, change nothing", async () => {
      const accounts = accountService(stack);
      const consent = createCallConsentClient({
        address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
        serviceToken: stack.serviceToken,
      });
      try {
        const bobsSession = await sessionCookieOf(bob.context, stack.baseUrl);
        const aliceSession = await sessionCookieOf(alice.context, stack.baseUrl);
        const bobId = (await accounts.getSession({ sessionCookie: bobsSession })).user!.id;
        const aliceId = (await accounts.getSession({ sessionCookie: aliceSession })).user!.id;
        const bobsKey = (await accounts.listApiKeys({ sessionCookie: bobsSession })).keys.find(
          (key) => key.name === 'Automation',
        )!;
        const bobsClientId = bob.app.clientInformation()!.client_id;
        const bobsChoices = async () => ({
          key: (await accounts.listApiKeys({ sessionCookie: bobsSession })).keys.find(
            (key) => key.id === bobsKey.id,
          )?.choices,
          app: (await accounts.listConnectedApps({ sessionCookie: bobsSession })).apps.find(
            (app) => app.clientId === bobsClientId,
          )?.choices,
        });
        const before = await bobsChoices();
        const { page } = alice;

        // Alice's own rows' choice forms (her CSRF tokens), their hidden id changed to bob's.
        for (const { field, id, notice } of [
          { field: 'key', id: bobsKey.id, notice: 'key_choices_not_saved' },
          { field: 'client', id: bobsClientId, notice: 'app_choices_not_saved' },
        ]) {
          await page.goto(`${stack.baseUrl}/dashboard`);
          const save = page.getByRole('button', {
            name: `Save choices for ${field === 'key' ? 'Automation' : 'Sheets Agent'}`,
          });
          const form = page.locator('form.choices').filter({ has: save });
          await form.locator(`input[name=${field}]`).evaluate((input, value) => {
            (input as { value: string }).value = value;
          }, id);
          await form.getByRole('checkbox', { name: 'May share and send outside your account' }).check();
          await save.click();
          await page.waitForURL(/\/dashboard\?notice=/);
          expect(new URL(page.url()).searchParams.get('notice'), field).toBe(notice);
        }
        expect(await bobsChoices()).toEqual(before);

        // Bob's pending call approval: not found for alice, and her own page's answer sent to it does nothing.
        const approval = async (userId: string, credential: { apiKeyId: string }) => {
          const { approvalId } = await consent.createCallApproval({
            credential: { userId, ...credential },
            tool: 'share_file',
            sentence: 'Share a file sends outside your account: anyone with the link may open it as reader.',
            validForMs: 300_000,
          });
          return { approvalId, url: `${stack.baseUrl}${approvalLinkPath(stack.serviceToken, approvalId)}` };
        };
        const bobs = await approval(bobId, { apiKeyId: bobsKey.id });
        const alicesKey = (await accounts.listApiKeys({ sessionCookie: aliceSession })).keys.find(
          (key) => key.name === 'Automation',
        )!;
        const alices = await approval(aliceId, { apiKeyId: alicesKey.id });
        expect((await page.goto(bobs.url))?.status()).toBe(404);
        expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
        await page.goto(alices.url);
        await page
          .getByRole('form', { name: 'Approve or decline this call' })
          .evaluate((form, action) => form.setAttribute('action', action), new URL(bobs.url).pathname);
        const answered = page.waitForResponse((response) => response.request().method() === 'POST');
        await page.getByRole('button', { name: 'Approve' }).click();
        expect((await answered).status()).toBeGreaterThanOrEqual(400);
        const stateOf = async (approvalId: string, userId: string) =>
          (await consent.getCallApproval({ approvalId, userId })).state;
        expect(await stateOf(bobs.approvalId, bobId)).toBe('CALL_APPROVAL_STATE_PENDING');
        expect(await stateOf(alices.approvalId, aliceId)).toBe('CALL_APPROVAL_STATE_PENDING');
      } finally {
        consent.close();
        accounts.close();
      }
    });
  },
);
