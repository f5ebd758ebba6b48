import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodySketcher } from '../src/protocol/body-sketch.ts';
import { callTooLargeText, rowsThatFit } from '../src/protocol/request-too-large.ts';

/** The sketch of `text` fed in chunks of `size` bytes. */
function sketchOf(text: string, size = 7) {
  const bytes = Buffer.from(text);
  const sketcher = new BodySketcher();
  for (let at = 0; at < bytes.length; at += size) sketcher.write(bytes.subarray(at, at + size));
  return sketcher.sketch();
}

const rowsOf = (count: number, width: number) =>
  Array.from({ length: count }, (_, row) =>
    Array.from({ length: width }, (_, column) => `r${row}c${column} é"\\`),
  );

describe('BodySketcher', () => {
  it('finds the id, method, tool and the rows written, in the order the TypeScript SDK sends them', () => {
    const values = rowsOf(30, 4);
    // The SDK spreads the request, then sets jsonrpc and id: the id comes last.
    const body = JSON.stringify({
      method: 'tools/call',
      params: { name: 'write_range', arguments: { spreadsheetId: 'x'.repeat(20), range: 'A1', values } },
      jsonrpc: '2.0',
      id: 41,
    });
    const sketch = sketchOf(body);
    expect(sketch).toEqual({
      bytes: Buffer.byteLength(body),
      id: 41,
      method: 'tools/call',
      tool: 'write_range',
      rows: 30,
      widest: 4,
      valuesBytes: Buffer.byteLength(JSON.stringify(values)),
    });
  });

  it('counts every data entry of write_ranges, and takes a string id', () => {
    const data = [
      { range: 'A1', values: rowsOf(3, 2) },
      { range: 'D1', values: rowsOf(5, 6) },
    ];
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'call-7',
      method: 'tools/call',
      params: { name: 'write_ranges', arguments: { spreadsheetId: 's', data } },
    });
    expect(sketchOf(body, 1)).toMatchObject({ id: 'call-7', tool: 'write_ranges', rows: 8, widest: 6 });
  });

  it('is not fooled by look-alike keys deeper down, in strings, or in a batch', () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: {
        name: 'append_rows',
        arguments: { values: [['{"id": 9, "method": "x"}'], [1, 2, 3]], other: { id: 5, values: [[1]] } },
        _meta: { name: 'not the tool', id: 3 },
      },
      id: null,
    });
    expect(sketchOf(body)).toEqual({
      bytes: Buffer.byteLength(body),
      method: 'tools/call',
      tool: 'append_rows',
      rows: 2,
      widest: 3,
      valuesBytes: Buffer.byteLength('[["{\\"id\\": 9, \\"method\\": \\"x\\"}"],[1,2,3]]'),
    });
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }]);
    expect(sketchOf(batch)).toEqual({ bytes: batch.length, rows: 0, widest: 0, valuesBytes: 0 });
  });

  it('agrees with JSON.parse on any request, however it is cut into chunks', () => {
    const cell = fc.oneof(
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.string({ maxLength: 30 })),
        fc.array(fc.array(cell, { maxLength: 6 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 64 }),
        (id, values, size) => {
          const body = JSON.stringify(
            {
              jsonrpc: '2.0',
              id,
              method: 'tools/call',
              params: { name: 'write_range', arguments: { values } },
            },
            null,
            size % 3 === 0 ? 1 : undefined,
          );
          const sketch = sketchOf(body, size);
          expect(sketch.id).toEqual(JSON.parse(body).id);
          expect(sketch.rows).toBe(values.length);
          expect(sketch.widest).toBe(Math.max(0, ...values.map((row) => row.length)));
        },
      ),
    );
  });
});

describe('the answer to a call past the limit', () => {
  it('names how many rows of this width fit, the cells per call bounding them', () => {
    const sketch = { bytes: 6_000_000, id: 1, rows: 10_000, widest: 10, valuesBytes: 5_999_000 };
    // Rows of ~600 bytes; 4 MiB leaves room for ~6,990 of them.
    expect(rowsThatFit(sketch, 4 * 1024 * 1024)).toBe(6_990);
    expect(callTooLargeText(sketch, 4 * 1024 * 1024)).toBe(
      'Nothing was done: this call is 6,000,000 bytes, over the 4 MiB (4,194,304 bytes) one call may carry. At this width (10 columns, about 600 bytes a row) about 6,990 rows fit per call: send the 10,000 rows in calls of at most that many (write_range from the next row, or append_rows).',
    );
    // Narrow rows: 100,000 cells a call bound them first.
    expect(
      rowsThatFit({ bytes: 5_000_000, rows: 1_000_000, widest: 2, valuesBytes: 5_000_000 }, 4 * 1024 * 1024),
    ).toBe(50_000);
    expect(callTooLargeText({ bytes: 5_000_000, rows: 0, widest: 0, valuesBytes: 0 }, 4 * 1024 * 1024)).toBe(
      'Nothing was done: this call is 5,000,000 bytes, over the 4 MiB (4,194,304 bytes) one call may carry. Send less in each call.',
    );
  });
});
