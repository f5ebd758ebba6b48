/**
 * `pnpm --filter @sheetgate/mcp bench:journal-images`: how large the change journal's structure
 * entries are (docs/design.md §11.8) for writes of a size people make, and what a write past the
 * bounds (MAX_UNDO_CELLS cells, MAX_PAYLOAD_BYTES of JSON) is recorded as. The tools run in this
 * process against a Google emulator process (test/support/tools-in-process.ts), journaled by the
 * service's own wrapper (kit/journal-writes.ts) into a journal that keeps the entries here.
 *
 * Each case is run three times, each on a spreadsheet of its own built alike: without the journal,
 * with it (the entry as recorded: payload bytes, cells, words, or why undo is not available), and
 * inside a bare state capture (journal/state/state-capture.ts) to size the entry the bounds
 * dropped (its cells that changed, as the journal keeps them, and the images as read). Time and
 * CPU are this process's — Sheetgate's own work and its Google client, not the emulator's — for the
 * call with and without the journal.
 */
import type { ChangeEntry, ChangeJournal } from '../src/journal/change-journal.ts';
import { MAX_PAYLOAD_BYTES, MAX_UNDO_CELLS } from '../src/journal/change-payloads.ts';
import { capturedChange, runCapturing } from '../src/journal/state/state-capture.ts';
import { changedParts } from '../src/journal/state/state-describe.ts';
import { stateDiff } from '../src/journal/state/state-diff.ts';
import { journalWrites } from '../src/tools/kit/journal-writes.ts';
import type { ToolDefinition } from '../src/tools/kit/tool-definition.ts';
import { startToolsUnderTest, type ToolsUnderTest } from '../test/support/tools-in-process.ts';
import { out } from './one-request.ts';

interface Case {
  name: string;
  tool: string;
  /** Builds the case's spreadsheet; answers the call's arguments. */
  prepare(
    under: ToolsUnderTest,
    run: (tool: string, args: Record<string, unknown>) => Promise<unknown>,
  ): Promise<Record<string, unknown>>;
}

const grid = (rows: number, columns: number, cell: (row: number, column: number) => unknown) =>
  Array.from({ length: rows }, (_, row) => Array.from({ length: columns }, (_, column) => cell(row, column)));
const numbers = (rows: number, columns: number) =>
  grid(rows, columns, (row, column) => row * columns + column);
const seedOne = async (under: ToolsUnderTest, values: unknown[][]) =>
  (await under.seed([{ name: 'Journal images', values }]))[0]!;

const CASES: Case[] = [
  {
    name: 'format_range, 1,000 × 10 cells bold with a background',
    tool: 'format_range',
    async prepare(under) {
      const spreadsheetId = await seedOne(under, numbers(1_000, 10));
      return { spreadsheetId, range: 'Sheet1!A1:J1000', bold: true, backgroundColor: '#ffeeaa' };
    },
  },
  {
    name: 'format_range, 100 × 10 cells bold with a background',
    tool: 'format_range',
    async prepare(under) {
      const spreadsheetId = await seedOne(under, numbers(100, 10));
      return { spreadsheetId, range: 'Sheet1!A1:J100', bold: true, backgroundColor: '#ffeeaa' };
    },
  },
  {
    name: 'format_range, 400 × 10 cells bold with a background',
    tool: 'format_range',
    async prepare(under) {
      const spreadsheetId = await seedOne(under, numbers(400, 10));
      return { spreadsheetId, range: 'Sheet1!A1:J400', bold: true, backgroundColor: '#ffeeaa' };
    },
  },
  {
    name: 'add_conditional_format, a rule on a tab of 20 rules',
    tool: 'add_conditional_format',
    async prepare(under, run) {
      const spreadsheetId = await seedOne(under, numbers(300, 6));
      for (let n = 0; n < 20; n++)
        await run('add_conditional_format', {
          spreadsheetId,
          ranges: [`Sheet1!${String.fromCharCode(65 + (n % 6))}2:${String.fromCharCode(65 + (n % 6))}300`],
          condition: 'NUMBER_GREATER',
          values: [n * 10],
          format: { backgroundColor: '#ffeeaa', bold: n % 2 === 0 },
        });
      return {
        spreadsheetId,
        ranges: ['Sheet1!B2:B300'],
        condition: 'NUMBER_LESS',
        values: [5],
        format: { textColor: '#aa0000' },
      };
    },
  },
  {
    name: 'add_chart, a column chart of 20 rows × 3 columns',
    tool: 'add_chart',
    async prepare(under) {
      const spreadsheetId = await seedOne(under, [
        ['Month', 'Sales', 'Costs'],
        ...grid(20, 3, (row, column) => (column === 0 ? `M${row + 1}` : row * 10 + column)),
      ]);
      return { spreadsheetId, type: 'column', range: 'Sheet1!A1:C21', title: 'Sales and costs' };
    },
  },
  {
    name: 'sort_range, 5,000 × 6 cells by one column',
    tool: 'sort_range',
    async prepare(under) {
      const spreadsheetId = await seedOne(
        under,
        grid(5_000, 6, (row, column) => (column === 1 ? (row * 7919) % 5_000 : `r${row}c${column}`)),
      );
      return { spreadsheetId, range: 'Sheet1!A1:F5000', sortBy: [{ column: 'B' }] };
    },
  },
  {
    name: 'set_data_validation, a list on 10,000 cells',
    tool: 'set_data_validation',
    async prepare(under) {
      const spreadsheetId = await seedOne(
        under,
        grid(1_000, 10, () => 'open'),
      );
      return {
        spreadsheetId,
        range: 'Sheet1!A1:J1000',
        condition: 'ONE_OF_LIST',
        values: ['open', 'done', 'late'],
      };
    },
  },
  {
    name: 'find_replace, every tab of a 3-tab book of 20,000 cells',
    tool: 'find_replace',
    async prepare(under) {
      const tab = (title: string, rows: number) => ({
        title,
        values: grid(rows, 10, (row, column) =>
          column === 2 ? (row % 4 ? 'open' : 'closed') : `${title}-${row}-${column}`,
        ),
      });
      const [spreadsheetId] = await under.seed([
        { name: 'Journal images', sheets: [tab('North', 700), tab('South', 700), tab('West', 600)] },
      ]);
      return { spreadsheetId, find: 'closed', replacement: 'done' };
    },
  },
  {
    name: 'sort_range past the cell bound at its before-read: 9,000 × 6 cells',
    tool: 'sort_range',
    async prepare(under) {
      const spreadsheetId = await seedOne(
        under,
        grid(9_000, 6, (row, column) => (column === 1 ? (row * 7919) % 9_000 : `r${row}c${column}`)),
      );
      return { spreadsheetId, range: 'Sheet1!A1:F9000', sortBy: [{ column: 'B' }] };
    },
  },
  {
    name: 'format_range past the cell bound: 5,001 × 10 cells',
    tool: 'format_range',
    async prepare(under) {
      const spreadsheetId = await seedOne(under, numbers(5_001, 10));
      return { spreadsheetId, range: 'Sheet1!A1:J5001', bold: true };
    },
  },
];

const under = await startToolsUnderTest();
try {
  const entries: ChangeEntry[] = [];
  const recording = {
    record(_auth, entry) {
      entries.push(entry);
      return String(entries.length);
    },
  } as Partial<ChangeJournal> as ChangeJournal;
  const plain = (name: string) => under.tool(name);
  const journaled = new Map(
    journalWrites(
      CASES.map((each) => plain(each.tool)),
      recording,
    ).map((tool) => [tool.name, tool]),
  );
  const run = async (tool: ToolDefinition, args: Record<string, unknown>) => {
    const input = tool.inputSchema.parse(args);
    await under.forgetCalls();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await tool.run(input, under.context());
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { wall, cpu: (used.user + used.system) / 1000, google: (await under.calls()).all };
  };
  const setup = (name: string, args: Record<string, unknown>) => run(plain(name), args);

  out(
    `bench:journal-images — the journal's structure entries, tools in this process against the emulator; bounds: ${MAX_UNDO_CELLS.toLocaleString('en-US')} cells, ${MAX_PAYLOAD_BYTES / 1024} KB of JSON`,
  );
  out(`Node ${process.version}`);
  for (const each of CASES) {
    // The bare capture first: it warms the tool's code and the journal's before the timed calls.
    const tool = plain(each.tool);
    const args = await each.prepare(under, setup);
    const { capture } = await runCapturing(() => tool.run(tool.inputSchema.parse(args), under.context()));
    const without = await run(tool, await each.prepare(under, setup));
    entries.length = 0;
    const withJournal = await run(journaled.get(each.tool)!, await each.prepare(under, setup));
    const entry = entries[0];
    const change = capture.unavailable ? undefined : capturedChange(capture);
    const diff = change ? stateDiff(change.before, change.after) : undefined;
    const kept = change && diff ? changedParts(change.before, change.after, diff) : undefined;
    const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null));
    out(`\n${each.name}`);
    if (kept && change && diff) {
      const payload = { v: 2, kind: 'state', footprint: change.footprint, ...kept };
      const altered = diff.cells.reduce((sum, area) => sum + area.changes.length, 0);
      out(
        `  entry: ${kb(bytes(payload))} of JSON (before ${kb(bytes(kept.before))}, after ${kb(bytes(kept.after))}, footprint ${kb(bytes(change.footprint))}); ${altered.toLocaleString('en-US')} cells altered${altered ? `, ${Math.round(bytes(payload) / altered)} B each` : ''}; the images as read ${kb(bytes(change.before))} and ${kb(bytes(change.after))}`,
      );
    } else out(`  images: none kept — ${capture.unavailable ?? 'nothing captured'}`);
    if (entry?.payload) out(`  recorded: ${kb(bytes(entry.payload))}; ${entry.summary ?? ''}`);
    else
      out(
        `  recorded without a payload (${entry?.cells.toLocaleString('en-US')} cells, ${entry?.ranges.join(', ') || 'no range'}): ${entry?.undoUnavailableReason ?? 'no entry'}`,
      );
    out(
      `  the call in this process: ${ms(withJournal.wall)} wall, ${ms(withJournal.cpu)} CPU with the journal; ${ms(without.wall)}, ${ms(without.cpu)} without; Google requests ${withJournal.google} vs ${without.google}`,
    );
  }
} finally {
  await under.stop();
}

function kb(bytes: number): string {
  return bytes < 10_240 ? `${bytes.toLocaleString('en-US')} B` : `${(bytes / 1024).toFixed(0)} KB`;
}
function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}
