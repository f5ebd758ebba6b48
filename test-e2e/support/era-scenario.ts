import type { Stack } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EraClient } from './era-clients.ts';
import { seedFiles } from './google-emulator.ts';

// The scenario every MCP client runs in each protocol era it speaks (issue 16): tools/list, a
// read, a write read back, progress on a long call, and a destructive call — confirmed and
// declined through the client's elicitation handler on 2026-07-28, run at once before it.

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';

export interface ScenarioContext {
  stack: Stack;
  /** The person whose Drive the clients work in. */
  email: string;
  /** Tab titles as Sheetgate reads them from the emulator, through a client not under test. */
  tabTitles(spreadsheetId: string): Promise<Map<string, number>>;
}

/** How many Sheets batchUpdate calls (the structural edits: deleting a tab is one) the emulator saw. */
async function batchUpdates(stack: Stack): Promise<number> {
  const response = await fetch(`${stack.emulatorUrl}/__emulator/stats`);
  const stats = (await response.json()) as { methods: Record<string, { attempts: number }> };
  return stats.methods['sheets.spreadsheets.batchUpdate']?.attempts ?? 0;
}

function text(result: { content?: Array<{ type: string; text?: string }> }): string {
  return (result.content ?? []).map((block) => block.text ?? '').join('\n');
}

/**
 * One describe block for one client in one era. `connect` is called once, after the person's
 * workbook is seeded; `context` once the file's stack is up.
 */
export function eraScenario(
  label: string,
  era: 'modern' | 'legacy',
  context: () => ScenarioContext,
  connect: () => Promise<EraClient>,
) {
  describe(label, () => {
    let client: EraClient;
    let spreadsheetId: string;
    let tabs: Map<string, number>;

    beforeAll(async () => {
      const { stack, email, tabTitles } = context();
      // Five tabs of Google's default 1,000 × 26 grid: a search of all of them takes several
      // Google calls, so there is something to report progress on.
      [spreadsheetId] = (await seedFiles(stack, email, [
        {
          name: `${label} workbook`,
          sheets: [
            {
              title: 'Plan',
              values: [
                ['Item', 'Cost'],
                ['Rent', 1200],
              ],
            },
            { title: 'Q1', values: [['Pens', 3]] },
            { title: 'Q2', values: [['Paper', 2]] },
            { title: 'Doomed', values: [['pens, to be deleted']] },
            { title: 'Kept', values: [['keep me']] },
          ],
        },
      ])) as [string];
      tabs = await tabTitles(spreadsheetId);
      client = await connect();
    });
    afterAll(async () => {
      await client?.close();
    });

    it('tools/list: the tools, read and write among them', async () => {
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining(['read_range', 'write_range', 'find_in_spreadsheet', 'delete_sheet']),
      );
    });

    it('read_range: the seeded cells', async () => {
      const { result } = await client.call('read_range', { spreadsheetId, range: 'Plan!A1:B2' });
      expect(result.isError, text(result)).toBeFalsy();
      expect(result.structuredContent?.values).toEqual([
        ['Item', 'Cost'],
        ['Rent', '1200'],
      ]);
    });

    it('write_range, then read_range reads back what was written (a formula evaluated)', async () => {
      const written = await client.call('write_range', {
        spreadsheetId,
        range: 'Plan!A3:B3',
        values: [['Water', '=40+2']],
      });
      expect(written.result.isError, text(written.result)).toBeFalsy();
      expect(written.result.structuredContent?.updatedCells).toBe(2);
      const { result } = await client.call('read_range', { spreadsheetId, range: 'Plan!A3:B3' });
      expect(result.structuredContent?.values).toEqual([['Water', '42']]);
    });

    it('find_in_spreadsheet over every tab with a progress token: progress arrives before the result', async () => {
      const { result, progress } = await client.call(
        'find_in_spreadsheet',
        { spreadsheetId, query: 'pens' },
        { progress: true },
      );
      expect(result.isError, text(result)).toBeFalsy();
      expect(
        (result.structuredContent!.matches as Array<{ value: string }>).map((match) => match.value),
      ).toEqual(['Pens', 'pens, to be deleted']);
      // One as the search starts, one after each Google call.
      expect(progress.length).toBeGreaterThanOrEqual(2);
      for (const seen of progress)
        if (seen.total != null) expect(seen.progress).toBeLessThanOrEqual(seen.total);
      const values = progress.map((seen) => seen.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
    });

    if (era === 'modern') {
      it('delete_sheet, confirmed: the client is asked through elicitation naming the tab, accepts, and the tab is gone from Google', async () => {
        const { result, elicitations } = await client.call(
          'delete_sheet',
          { spreadsheetId, sheetId: tabs.get('Doomed') },
          { elicitation: 'accept' },
        );
        expect(elicitations).toHaveLength(1);
        expect(elicitations[0]!.mode ?? 'form').toBe('form');
        expect(elicitations[0]!.message).toContain('Doomed');
        expect(result.isError, text(result)).toBeFalsy();
        expect(result.structuredContent?.deletedSheetId).toBe(tabs.get('Doomed'));
        expect([...(await context().tabTitles(spreadsheetId)).entries()]).toEqual(
          [...tabs.entries()].filter(([title]) => title !== 'Doomed'),
        );
      });

      it('delete_sheet, declined: the tab is still in Google, no edit reached it, and the result (an error) says nothing was changed', async () => {
        const { stack, tabTitles } = context();
        const before = await batchUpdates(stack);
        const { result, elicitations } = await client.call(
          'delete_sheet',
          { spreadsheetId, sheetId: tabs.get('Kept') },
          { elicitation: 'decline' },
        );
        expect(elicitations).toHaveLength(1);
        expect(elicitations[0]!.message).toContain('Kept');
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/^Nothing was changed: the person did not confirm\. .*the tab "Kept"/);
        expect(result.structuredContent?.deletedSheetId).toBeUndefined();
        expect(await batchUpdates(stack)).toBe(before);
        expect((await tabTitles(spreadsheetId)).get('Kept')).toBe(tabs.get('Kept'));
      });
    } else {
      it('delete_sheet runs at once without asking, as today (confirmations are 2026-07-28 only), though the client declares elicitation', async () => {
        const { result, elicitations } = await client.call(
          'delete_sheet',
          { spreadsheetId, sheetId: tabs.get('Doomed') },
          { elicitation: 'decline' },
        );
        expect(elicitations).toEqual([]);
        expect(result.isError, text(result)).toBeFalsy();
        expect(result.structuredContent?.deletedSheetId).toBe(tabs.get('Doomed'));
        expect([...(await context().tabTitles(spreadsheetId)).entries()]).toEqual(
          [...tabs.entries()].filter(([title]) => title !== 'Doomed'),
        );
      });
    }

    if (era === 'modern') {
      it(`on the wire: no initialize; every POST carries MCP-Protocol-Version ${MODERN_VERSION} and Mcp-Method, each tools/call its Mcp-Name`, async () => {
        const posts = (await client.requests()).filter((request) => request.httpMethod === 'POST');
        expect(posts.map((request) => request.method)).not.toContain('initialize');
        expect(posts.map((request) => request.method)).toContain('tools/call');
        for (const request of posts) {
          expect(request.protocolVersionHeader).toBe(MODERN_VERSION);
          expect(request.mcpMethodHeader).toBe(request.method);
          if (request.method === 'tools/call') expect(request.mcpNameHeader).toEqual(expect.any(String));
        }
      });
    } else {
      it(`on the wire: initialize first, then every request at ${LEGACY_VERSION}`, async () => {
        const posts = (await client.requests()).filter((request) => request.httpMethod === 'POST');
        expect(posts[0]!.method).toBe('initialize');
        expect(posts.map((request) => request.method)).toContain('tools/call');
        for (const request of posts.slice(1)) expect(request.protocolVersionHeader).toBe(LEGACY_VERSION);
      });
    }
  });
}
