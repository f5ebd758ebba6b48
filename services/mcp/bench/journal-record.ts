/**
 * `node services/mcp/bench/journal-record.ts`: the change journal's own work on a structure write
 * (docs/design.md §11.8), without the HTTP around it — what kit/journal-writes.ts does once a
 * call's batchUpdate is captured: comparing the images, the log's words, the entry's cells that
 * changed, and its bounds. Each case's call is captured once, by the tools in this process against
 * the emulator; then the recording step runs BENCH_RECORD_CALLS times on fresh copies of the
 * capture (so nothing a comparison keeps with an image is reused), its CPU less that of making the
 * copies: the median of five rounds, per call.
 */
import { bounded } from '../src/journal/change-payloads.ts';
import { keptCellBytes, tooLargeToCompare } from '../src/journal/state/state-bounds.ts';
import { capturedChange, runCapturing, type StateCapture } from '../src/journal/state/state-capture.ts';
import { changedParts, describeStateChange } from '../src/journal/state/state-describe.ts';
import { stateDiff } from '../src/journal/state/state-diff.ts';
import { startToolsUnderTest } from '../test/support/tools-in-process.ts';
import { out } from './one-request.ts';

const CALLS = Number(process.env.BENCH_RECORD_CALLS ?? 500);
const ROUNDS = 5;

const CASES: Array<{ name: string; tool: string; rows: number; args: Record<string, unknown> }> = [
  {
    name: 'format_range, 60 cells bold',
    tool: 'format_range',
    rows: 20,
    args: { range: 'Sheet1!A1:C20', bold: true },
  },
  {
    name: 'format_range, 1,000 cells bold with a background',
    tool: 'format_range',
    rows: 100,
    args: { range: 'Sheet1!A1:J100', bold: true, backgroundColor: '#ffeeaa' },
  },
  {
    name: 'add_conditional_format, a rule on a tab of 2',
    tool: 'add_conditional_format',
    rows: 20,
    args: {
      ranges: ['Sheet1!B2:B20'],
      condition: 'NUMBER_GREATER',
      values: [3],
      format: { backgroundColor: '#ffeeaa' },
    },
  },
  {
    name: 'add_chart, a column chart of 20 rows',
    tool: 'add_chart',
    rows: 20,
    args: { type: 'column', range: 'Sheet1!A1:C20', title: 'Chart' },
  },
  { name: 'add_sheet', tool: 'add_sheet', rows: 20, args: { title: 'New tab' } },
];

/** What kit/journal-writes.ts does with a capture, the journal's sending left out. */
function record(capture: StateCapture, tool: string): unknown {
  const change = capturedChange(capture);
  if (!change) throw new Error('nothing captured');
  if (tooLargeToCompare(change.footprint, change.before, change.after)) throw new Error('past the bounds');
  const diff = stateDiff(change.before, change.after);
  const words = describeStateChange(change.before, change.after, tool, diff);
  keptCellBytes(diff.cells);
  return bounded(
    { v: 2, kind: 'state', footprint: change.footprint, ...changedParts(change.before, change.after, diff) },
    words.cells,
  );
}

const cpuMicros = (run: () => unknown) => {
  const started = process.cpuUsage();
  for (let call = 0; call < CALLS; call++) run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / CALLS;
};

// Every case captured first, then timed: the emulator is not kept waiting through the timing.
const captured: Array<{ name: string; tool: string; frozen: string }> = [];
const under = await startToolsUnderTest();
try {
  for (const each of CASES) {
    const [spreadsheetId] = await under.seed([
      {
        name: 'Journal record',
        values: Array.from({ length: each.rows }, (_, row) => [`r${row}`, row, row * 2, 1, 2, 3, 4, 5, 6, 7]),
      },
    ]);
    const tool = under.tool(each.tool);
    if (each.tool === 'add_conditional_format')
      for (const value of [0, 1])
        await tool.run(
          tool.inputSchema.parse({ spreadsheetId, ...each.args, values: [value] }),
          under.context(),
        );
    const { capture } = await runCapturing(() =>
      tool.run(tool.inputSchema.parse({ spreadsheetId, ...each.args }), under.context()),
    );
    captured.push({ name: each.name, tool: each.tool, frozen: JSON.stringify(capture) });
  }
} finally {
  await under.stop();
}

out(
  `bench:journal-record — the journal's work on a captured structure write, ${CALLS} calls × ${ROUNDS} rounds`,
);
out(`Node ${process.version}`);
for (const { name, tool, frozen } of captured) {
  const copy = () => JSON.parse(frozen) as StateCapture;
  for (let call = 0; call < 200; call++) record(copy(), tool);
  const rounds = Array.from(
    { length: ROUNDS },
    () => cpuMicros(() => record(copy(), tool)) - cpuMicros(copy),
  );
  rounds.sort((a, b) => a - b);
  out(
    `${name}: ${Math.round(rounds[2] as number)} µs per call (rounds ${rounds.map(Math.round).join(', ')}); capture ${frozen.length.toLocaleString('en-US')} B of JSON`,
  );
}
