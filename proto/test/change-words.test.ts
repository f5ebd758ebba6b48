import { describe, expect, it } from 'vitest';
import { describeChange } from '../src/change-words.ts';

describe('the words of a change', () => {
  it('is the recorded summary when there is one', () => {
    expect(
      describeChange({
        summary: 'wrote 12 cells of Sheet1!A1:C4 (3 formulas)',
        tool: 'write_range',
        ranges: ['Sheet1!A1:C4'],
        cells: 12,
        rows: 4,
      }),
    ).toBe('wrote 12 cells of Sheet1!A1:C4 (3 formulas)');
  });

  it('falls back to the tool, ranges and the counts it has, never "0 cells"', () => {
    expect(describeChange({ summary: '', tool: 'format_range', ranges: [], cells: 0, rows: 0 })).toBe(
      'format_range',
    );
    expect(describeChange({ summary: '', tool: 'add_sheet', ranges: ['Q3'], cells: 0, rows: 0 })).toBe(
      'add_sheet of Q3',
    );
    expect(
      describeChange({
        summary: '',
        tool: 'write_ranges',
        ranges: ['A1', 'B1', 'C1', 'D1', 'E1'],
        cells: 1200,
        rows: 1,
      }),
    ).toBe('write_ranges of A1, B1, C1 and 2 more (1,200 cells, 1 row)');
  });
});
