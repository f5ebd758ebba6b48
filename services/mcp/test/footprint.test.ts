import { describe, expect, it } from 'vitest';
import { footprintOf } from '../src/journal/state/footprint.ts';
import { ALL_CELL_FIELDS } from '../src/journal/state/state-image.ts';

// What a batchUpdate may change, from its requests alone (journal/state/footprint.ts): the parts
// structure undo reads before the write and writes back.

const range = (
  sheetId: number,
  startRow: number,
  endRow: number,
  startColumn: number,
  endColumn: number,
) => ({
  sheetId,
  startRowIndex: startRow,
  endRowIndex: endRow,
  startColumnIndex: startColumn,
  endColumnIndex: endColumn,
});

describe('footprintOf', () => {
  it('keeps the cell fields a mask writes, every field for *', () => {
    expect(
      footprintOf([
        { repeatCell: { range: range(1, 0, 2, 0, 3), fields: 'userEnteredFormat.textFormat.bold,note' } },
        {
          updateCells: {
            start: { sheetId: 2, rowIndex: 4, columnIndex: 1 },
            rows: [{ values: [{}, {}] }],
            fields: '*',
          },
        },
      ]),
    ).toMatchObject({
      cells: [
        {
          sheetId: 1,
          startRow: 0,
          endRow: 2,
          startColumn: 0,
          endColumn: 3,
          fields: ['userEnteredFormat', 'note'],
        },
        { sheetId: 2, startRow: 4, endRow: 5, startColumn: 1, endColumn: 3, fields: ALL_CELL_FIELDS },
      ],
    });
  });

  it('keeps the cells around a border (clamped at the first row and column)', () => {
    expect(
      footprintOf([{ updateBorders: { range: range(0, 0, 2, 3, 4), top: { style: 'SOLID' } } }]),
    ).toMatchObject({
      cells: [
        { sheetId: 0, startRow: 0, endRow: 3, startColumn: 2, endColumn: 5, fields: ['userEnteredFormat'] },
      ],
    });
  });

  it("covers a paste's destination at least the source's size (transposed when asked), and a cut's source", () => {
    const pasted = footprintOf([
      {
        copyPaste: {
          source: range(0, 0, 2, 0, 3),
          destination: range(1, 5, 6, 0, 1),
          pasteType: 'PASTE_VALUES',
          pasteOrientation: 'TRANSPOSE',
        },
      },
      {
        cutPaste: {
          source: range(0, 10, 12, 0, 2),
          destination: { sheetId: 1, rowIndex: 20, columnIndex: 4 },
        },
      },
    ]);
    expect(pasted).toMatchObject({
      cells: [
        {
          sheetId: 1,
          startRow: 5,
          endRow: 8,
          startColumn: 0,
          endColumn: 2,
          fields: ['userEnteredValue', 'textFormatRuns'],
        },
        { sheetId: 0, startRow: 10, endRow: 12, startColumn: 0, endColumn: 2, fields: ALL_CELL_FIELDS },
        { sheetId: 1, startRow: 20, endRow: 22, startColumn: 4, endColumn: 6, fields: ALL_CELL_FIELDS },
      ],
      sheets: [
        { sheetId: 0, aspects: ['merges', 'conditionalFormats'] },
        { sheetId: 1, aspects: ['merges', 'conditionalFormats'] },
      ],
    });
  });

  it('fills an autofill backwards from its source', () => {
    expect(
      footprintOf([
        {
          autoFill: {
            sourceAndDestination: { source: range(0, 5, 7, 1, 2), dimension: 'ROWS', fillLength: -3 },
          },
        },
      ]),
    ).toMatchObject({ cells: [{ startRow: 2, endRow: 7, startColumn: 1, endColumn: 2 }] });
  });

  it('looks for objects named by id on every tab, and leaves out what a tab added in the batch holds', () => {
    expect(
      footprintOf([
        { deleteEmbeddedObject: { objectId: 9 } },
        { addSheet: { properties: { sheetId: 42, title: 'New' } } },
        { repeatCell: { range: range(42, 0, 1, 0, 1), cell: {}, fields: 'note' } },
        { addNamedRange: { namedRange: { name: 'x', range: range(0, 0, 1, 0, 1) } } },
      ]),
    ).toEqual({
      cells: [],
      dimensions: [],
      sheets: [{ sheetId: 'any', aspects: ['charts'] }],
      namedRanges: true,
      addsTabs: true,
    });
  });

  it('refuses what it cannot take back, saying why and which tool can', () => {
    expect(
      footprintOf([{ addSheet: {} }, { deleteDimension: { range: { sheetId: 0, dimension: 'ROWS' } } }]),
    ).toEqual({
      unsupported: expect.stringMatching(/^request 1 \(deleteDimension\) .*delete_dimension/),
    });
    expect(
      footprintOf([
        {
          updateSheetProperties: {
            properties: { sheetId: 0, gridProperties: { rowCount: 5 } },
            fields: 'gridProperties.rowCount',
          },
        },
      ]),
    ).toHaveProperty('unsupported');
    expect(
      footprintOf([{ updateCells: { range: range(0, 0, 1, 0, 1), fields: 'dataSourceFormula' } }]),
    ).toHaveProperty('unsupported');
    // A pivot table is its anchor cell's field, kept and written back like any other.
    expect(
      footprintOf([{ updateCells: { range: range(0, 0, 1, 0, 1), fields: 'pivotTable' } }]),
    ).toMatchObject({
      cells: [{ sheetId: 0, startRow: 0, endRow: 1, startColumn: 0, endColumn: 1, fields: ['pivotTable'] }],
    });
    expect(footprintOf([{ moveDimension: {} }])).toEqual({
      unsupported: expect.stringContaining('moveDimension'),
    });
  });
});
