/**
 * `pnpm --filter @sheetgate/google-emulator bench:formulas`: how long the emulator takes to answer
 * writes and reads on a tab of many formulas (issue 36 item 6). One emulator in this process on
 * 127.0.0.1, called through googleapis; per shape, a spreadsheet whose `Data` tab holds
 * BENCH_FORMULA_ROWS rows (default 5,000) of two formulas each, whole-column formulas
 * (`=SUM(A:A)`, `=COUNTIF(A:A,">5")`, …) in F, and a `Summary` tab reading `Data` across tabs:
 * - `running`: a number in A, `=A{n}*2` in B, a running `=SUM($A$1:A{n})` in C;
 * - `per-row-whole-column`: a client number in A, an amount in B, `=COUNTIF(A:A,A{n})` in C and
 *   `=IF(B{n}>AVERAGEIF(A:A,A{n},B:B)+3*STDEV(B:B),"flag","")` in D, as agents fill them down.
 * Then each operation BENCH_FORMULA_RUNS times (default 5): a one-cell write, a 100-cell write, a
 * read of the formulas' results, a row inserted and one removed by batchUpdate, a tab added with a
 * formula (as a scratch tab is) and removed. Per call: wall-clock p50 and range, and the p50 of the
 * call with a one-cell read after it (a write is answered before formulas are evaluated; the next
 * read pays for it), in wall-clock and in this process's CPU time (client and emulator: on a
 * shared machine, what the call costs apart from waiting). BENCH_FORMULA_SHAPES picks shapes
 * (comma-separated); BENCH_FORMULA_RUNS=0 times only the writes and the first read. `node
 * --cpu-prof` on this file profiles the emulator's side with the client's.
 */
import { performance } from 'node:perf_hooks';
import { startGoogleEmulator } from '../src/index.ts';
import { newTestClient, REDIRECT_URI, SCOPES, sheetsFor, signIn } from '../test/support/emulator.ts';

const ROWS = Number(process.env.BENCH_FORMULA_ROWS ?? 5000);
const SHAPES: Record<string, (row: number) => unknown[]> = {
  running: (row) => [row % 10, `=A${row}*2`, `=SUM($A$1:A${row})`],
  'per-row-whole-column': (row) => [
    row % 40,
    (row * 37) % 101,
    `=COUNTIF(A:A,A${row})`,
    `=IF(B${row}>AVERAGEIF(A:A,A${row},B:B)+3*STDEV(B:B),"flag","")`,
  ],
};
const shapes = (process.env.BENCH_FORMULA_SHAPES ?? Object.keys(SHAPES).join(',')).split(',');
const RUNS = Number(process.env.BENCH_FORMULA_RUNS ?? 5);
/** The whole run is abandoned past this, so that a slow emulator cannot hold the machine. */
const DEADLINE_MS = Number(process.env.BENCH_FORMULA_DEADLINE_MS ?? 600_000);

const timer = setTimeout(() => {
  process.stderr.write(`bench:formulas: stopped after ${DEADLINE_MS} ms\n`);
  process.exit(2);
}, DEADLINE_MS);
timer.unref();

const client = newTestClient();
const emulator = await startGoogleEmulator({
  port: 0,
  host: '127.0.0.1',
  clients: [{ ...client, redirectUris: [REDIRECT_URI] }],
});
try {
  const { auth } = await signIn(emulator, client, { scopes: [SCOPES.spreadsheets] });
  const sheets = sheetsFor(emulator, auth);
  for (const shape of shapes) {
    const rowOf = SHAPES[shape];
    if (!rowOf) throw new Error(`no shape ${shape}: ${Object.keys(SHAPES).join(', ')}`);
    await measureShape(sheets, shape, rowOf);
  }
} finally {
  await emulator.close();
}

async function measureShape(
  sheets: ReturnType<typeof sheetsFor>,
  shape: string,
  rowOf: (row: number) => unknown[],
): Promise<void> {
  const created = await sheets.spreadsheets.create({
    requestBody: {
      properties: { title: `Formula bench, ${shape}` },
      sheets: [{ properties: { title: 'Data' } }, { properties: { title: 'Summary' } }],
    },
  });
  const spreadsheetId = created.data.spreadsheetId as string;
  const dataSheetId = created.data.sheets?.[0]?.properties?.sheetId as number;
  const write = (range: string, values: unknown[][]) =>
    sheets.spreadsheets.values.update({
      spreadsheetId,
      range,
      valueInputOption: 'USER_ENTERED',
      requestBody: { values },
    });
  const dimension = (kind: 'insertDimension' | 'deleteDimension') => () =>
    sheets.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: [
          { [kind]: { range: { sheetId: dataSheetId, dimension: 'ROWS', startIndex: 10, endIndex: 11 } } },
        ],
      },
    });

  const setupStart = performance.now();
  const setupCpu = process.cpuUsage();
  const rows = Array.from({ length: ROWS }, (_, index) => rowOf(index + 1));
  await write('Data!A1', rows);
  const wholeColumn = [['=SUM(A:A)'], ['=COUNTIF(A:A,">5")'], ['=AVERAGE(B:B)'], ['=MAX(C:C)']];
  await write('Data!F1', wholeColumn);
  await write('Summary!A1', [['=Data!F1', '=SUM(Data!B2:B)', '=COUNTIF(Data!A:A,3)']]);
  // The first read evaluates the spreadsheet as it was written.
  await sheets.spreadsheets.values.get({ spreadsheetId, range: 'Summary!A1:C1' });
  const setupMs = performance.now() - setupStart;
  const setupUsed = process.cpuUsage(setupCpu);
  const formulas =
    rows.flat().filter((value) => typeof value === 'string' && value.startsWith('=')).length +
    wholeColumn.length +
    3;
  out(
    `\n${shape}: ${formulas} formulas (${ROWS} rows), ${RUNS} runs each, written and first read in ${ms(setupMs)} (CPU ${ms((setupUsed.user + setupUsed.system) / 1000)})`,
  );

  if (RUNS === 0) return;
  let step = 0;
  let scratchId = 0;
  const operations: Array<[string, () => Promise<unknown>]> = [
    ['values.update, 1 cell', () => write('Data!A7', [[++step % 10]])],
    [
      'values.update, 100 cells',
      () =>
        write(
          'Data!A101:A200',
          Array.from({ length: 100 }, (_, index) => [(index + ++step) % 10]),
        ),
    ],
    [
      'values.get, the formulas’ results',
      async () => {
        const { data } = await sheets.spreadsheets.values.get({ spreadsheetId, range: `Data!A1:F${ROWS}` });
        if ((data.values?.length ?? 0) !== ROWS) throw new Error('the read missed rows');
      },
    ],
    ['batchUpdate, insert a row', dimension('insertDimension')],
    ['batchUpdate, delete a row', dimension('deleteDimension')],
    [
      'batchUpdate, add a tab with a formula',
      async () => {
        const { data } = await sheets.spreadsheets.batchUpdate({
          spreadsheetId,
          requestBody: { requests: [{ addSheet: { properties: { title: 'Scratch' } } }] },
        });
        scratchId = data.replies?.[0]?.addSheet?.properties?.sheetId as number;
        await write('Scratch!A1', [['=COUNTIF(Data!A:A,3)']]);
      },
    ],
    [
      'batchUpdate, delete that tab',
      () =>
        sheets.spreadsheets.batchUpdate({
          spreadsheetId,
          requestBody: { requests: [{ deleteSheet: { sheetId: scratchId } }] },
        }),
    ],
  ];
  const check = () => sheets.spreadsheets.values.get({ spreadsheetId, range: 'Summary!A1:C1' });
  const timings = new Map<string, number[]>(operations.map(([name]) => [name, []]));
  const withRead = new Map<string, number[]>(operations.map(([name]) => [name, []]));
  const cpu = new Map<string, number[]>(operations.map(([name]) => [name, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const [name, operation] of operations) {
      const start = performance.now();
      const startCpu = process.cpuUsage();
      await operation();
      const answered = performance.now();
      await check();
      const used = process.cpuUsage(startCpu);
      timings.get(name)?.push(answered - start);
      withRead.get(name)?.push(performance.now() - start);
      cpu.get(name)?.push((used.user + used.system) / 1000);
    }
  }
  out('| operation | p50 | min–max | p50 with a read after | CPU with the read, p50 |');
  out('|---|---|---|---|---|');
  for (const [name] of operations) {
    const times = timings.get(name) ?? [];
    out(
      `| ${name} | ${ms(median(times))} | ${ms(Math.min(...times))}–${ms(Math.max(...times))} | ${ms(median(withRead.get(name) ?? []))} | ${ms(median(cpu.get(name) ?? []))} |`,
    );
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(0)} ms`;
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}
