import type { sheets_v4 } from 'googleapis';
import { describe, expect, it } from 'vitest';
import type { ChangePayload } from '../src/journal/change-payloads.ts';
import { keptCellBytes } from '../src/journal/state/state-bounds.ts';
import { canonical, normalized } from '../src/journal/state/state-compare.ts';
import { changedParts, describeStateChange } from '../src/journal/state/state-describe.ts';
import { stateDiff } from '../src/journal/state/state-diff.ts';
import type { CellAreaImage, CellRunsImage, StateImage } from '../src/journal/state/state-image.ts';
import { restoreState } from '../src/journal/state/state-restore.ts';
import { area, grid, image } from './support/state-images.ts';

// The one comparison of a structure change's images (state-cells.ts, state-diff.ts): each cell's
// key worked out once and shared by the log's words and the entry; the entry keeping only the cells
// that changed (runs), which undo writes back by blocks of rows; and entries made before (version
// 1, whole areas) still undone. restoreState with whole images is in state-restore.test.ts.

describe('canonical', () => {
  it('is the JSON of the normalized value: key order, null, empty strings, lists and objects do not count', () => {
    const values: unknown[] = [
      undefined,
      null,
      '',
      0,
      false,
      'text',
      [],
      {},
      [null, '', {}],
      { b: 1, a: { d: [], c: 'x', e: null }, f: {} },
      { userEnteredFormat: { textFormat: { bold: true, italic: false }, padding: {} } },
      { list: [{ b: 2, a: 1 }, [], 'é"\\'] },
    ];
    for (const value of values) expect(canonical(value)).toBe(JSON.stringify(normalized(value)) ?? '');
    expect(canonical({ a: 1, b: 2 })).toBe(canonical({ b: 2, a: 1 }));
  });
});

/** A cell whose value counts how often it is read: the comparison's evidence. */
function countedCell(text: string, reads: { count: number }): sheets_v4.Schema$CellData {
  const value = {};
  Object.defineProperty(value, 'stringValue', {
    enumerable: true,
    get() {
      reads.count++;
      return text;
    },
  });
  return { userEnteredValue: value };
}

describe('one comparison per change', () => {
  it("keys each cell once for the log's words, the entry and its size, however often they compare", () => {
    const reads = { count: 0 };
    const rows = (prefix: string) =>
      Array.from({ length: 20 }, (_, row) =>
        Array.from({ length: 3 }, (_, column) => countedCell(`${prefix}${row}-${column}`, reads)),
      );
    const before = image({ cells: [area(rows('a'))] });
    const after = image({ cells: [area(rows('b'))] });
    const diff = stateDiff(before, after);
    // Keying reads each cell (its JSON, then its canonical form when its value is new).
    const keyed = reads.count;
    expect(keyed).toBeGreaterThanOrEqual(120);
    expect(keyed).toBeLessThanOrEqual(240);
    expect(describeStateChange(before, after, 'format_range', diff).cells).toBe(60);
    expect(changedParts(before, after, diff).after.cells).toHaveLength(1);
    expect(keptCellBytes(diff.cells)).toBeGreaterThan(0);
    // Each image's keys are kept with it: comparing the same images again reads no cell.
    expect(describeStateChange(before, after).cells).toBe(60);
    expect(restoreState(changedParts(before, after), after).requests).toHaveLength(1);
    expect(reads.count).toBe(keyed);
  });
});

describe('the cells an entry keeps', () => {
  // A find and replace that changed 500 cells of 20,000: column C of every 4th row.
  const text = (row: number, column: number, replaced: boolean) =>
    column === 2 && row % 4 === 0 ? (replaced ? 'done' : 'closed') : `r${row}c${column}`;
  const book = (replaced: boolean) =>
    image({
      cells: [
        area(
          Array.from({ length: 2_000 }, (_, row) =>
            Array.from({ length: 10 }, (_, column) => text(row, column, replaced)),
          ),
          { fields: ['userEnteredValue', 'textFormatRuns'] },
        ),
      ],
    });
  const before = book(false);
  const after = book(true);

  it('are the cells that changed, on both sides, as runs along rows', () => {
    const kept = changedParts(before, after);
    const runs = (side: StateImage) => (side.cells[0] as CellRunsImage).runs;
    expect(runs(kept.before)).toHaveLength(500);
    expect(runs(kept.before)[1]).toEqual([4, 2, [{ userEnteredValue: { stringValue: 'closed' } }]]);
    expect(runs(kept.after)[1]).toEqual([4, 2, [{ userEnteredValue: { stringValue: 'done' } }]]);
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThan(60_000);
    expect(Buffer.byteLength(JSON.stringify({ before, after }))).toBeGreaterThan(800_000);
  });

  it('give the same undo, the same words and the same changes since as the whole images', () => {
    const kept = changedParts(before, after);
    const now = structuredClone(after);
    ((now.cells[0] as CellAreaImage).rows[8]![2] as sheets_v4.Schema$CellData) = {
      userEnteredValue: { stringValue: 'later' },
    };
    expect(restoreState(kept, now)).toEqual(restoreState({ before, after }, now));
    expect(restoreState(kept, now).changedSince).toEqual(['Sheet1!C9']);
    expect(describeStateChange(kept.before, kept.after, 'find_replace')).toEqual(
      describeStateChange(before, after, 'find_replace'),
    );
  });

  it('are written back by blocks of rows with altered cells, the cells left alone as they are now', () => {
    const was = image({ cells: [area([['a', 'b', 'c'], ['d', 'e', 'f'], ['g'], ['h'], ['i', 'j']])] });
    const is = image({ cells: [area([['A', 'b', 'c'], ['d', 'e', 'F'], ['g'], ['h'], ['i', 'J']])] });
    const now = image({ cells: [area([['A', 'later', 'c'], ['d', 'e', 'F'], ['g'], ['h'], ['i', 'J']])] });
    const { requests, changedSince } = restoreState(changedParts(was, is), now);
    expect(changedSince).toEqual([]);
    const value = (text: string) => ({ userEnteredValue: { stringValue: text } });
    expect(requests).toEqual([
      {
        updateCells: {
          range: grid(0, 0, 2, 0, 3),
          fields: 'userEnteredValue',
          rows: [
            { values: [value('a'), value('later'), value('c')] },
            { values: [value('d'), value('e'), value('f')] },
          ],
        },
      },
      {
        updateCells: {
          range: grid(0, 4, 5, 1, 2),
          fields: 'userEnteredValue',
          rows: [{ values: [value('j')] }],
        },
      },
    ]);
  });
});

describe('entries made before (version 1: whole areas)', () => {
  // As auth gives a payload back: JSON, the areas whole on both sides, unaltered cells included.
  const stored = JSON.stringify({
    v: 1,
    kind: 'state',
    footprint: {
      cells: [
        { sheetId: 0, startRow: 0, endRow: 2, startColumn: 0, endColumn: 3, fields: ['userEnteredFormat'] },
      ],
      dimensions: [],
      sheets: [],
      namedRanges: false,
      addsTabs: false,
    },
    before: {
      cells: [
        {
          sheetId: 0,
          sheet: 'Sheet1',
          top: 0,
          left: 0,
          fields: ['userEnteredFormat'],
          rows: [
            [{}, { userEnteredFormat: { textFormat: { italic: true } } }, {}],
            [{}, {}, {}],
          ],
        },
      ],
      dimensions: [],
      sheets: [],
    },
    after: {
      cells: [
        {
          sheetId: 0,
          sheet: 'Sheet1',
          top: 0,
          left: 0,
          fields: ['userEnteredFormat'],
          rows: [
            [
              { userEnteredFormat: { textFormat: { bold: true } } },
              { userEnteredFormat: { textFormat: { italic: true } } },
              {},
            ],
            [{}, {}, { userEnteredFormat: { textFormat: { bold: true } } }],
          ],
        },
      ],
      dimensions: [],
      sheets: [],
    },
  });

  it('are undone: the cells they altered put back, the others as they are now', () => {
    const payload = JSON.parse(stored) as Extract<ChangePayload, { kind: 'state' }>;
    const now = structuredClone(payload.after);
    const nowArea = now.cells[0] as CellAreaImage;
    nowArea.rows[0]![1] = { userEnteredFormat: { textFormat: { underline: true } } };
    const { requests, changedSince, restored } = restoreState(payload, now);
    expect(changedSince).toEqual([]);
    expect(restored).toEqual(['put back the formats of Sheet1!A1:C2']);
    expect(requests).toEqual([
      {
        updateCells: {
          range: grid(0, 0, 2, 0, 3),
          fields: 'userEnteredFormat',
          rows: [
            { values: [{}, { userEnteredFormat: { textFormat: { underline: true } } }, {}] },
            { values: [{}, {}, {}] },
          ],
        },
      },
    ]);
  });

  it('name a cell they altered that changed since', () => {
    const payload = JSON.parse(stored) as Extract<ChangePayload, { kind: 'state' }>;
    const now = structuredClone(payload.after);
    (now.cells[0] as CellAreaImage).rows[1]![2] = {};
    expect(restoreState(payload, now).changedSince).toEqual(['Sheet1!C2']);
  });
});
