import { describe, expect, it } from 'vitest';
import { markConstantResult, serializeReply } from '../src/protocol/json-rpc.ts';

describe('serialised replies', () => {
  it('reuse a constant result under each request id, and never hand one id the bytes of another', () => {
    const result = { tools: [{ name: 'read_range', description: 'x'.repeat(1_000) }] };
    markConstantResult(result);
    const ids: Array<string | number> = [1, 'a', 2, 1, 'a', '1', 0, -3.5, 'é"\\'];
    for (const id of [...ids, ...Array.from({ length: 50 }, (_, n) => n + 100), ...ids]) {
      const bytes = serializeReply({ jsonrpc: '2.0', id, result });
      expect(JSON.parse(bytes.toString())).toEqual({ jsonrpc: '2.0', id, result });
    }
  });

  it('keeps reusing the bytes of small ids however many other ids clients send first', () => {
    const result = { tools: [{ name: 'read_ranges', description: 'y'.repeat(1_000) }] };
    markConstantResult(result);
    // Odd ids (strings, large and negative numbers, fractions) are never kept, so they cannot fill
    // the table for everyone.
    const odd = [
      ...Array.from({ length: 64 }, (_, n) => `req-${n}`),
      ...Array.from({ length: 64 }, (_, n) => 1_000 + n),
      -1,
      2.5,
      32,
    ];
    for (const id of odd) {
      const first = serializeReply({ jsonrpc: '2.0', id, result });
      expect(serializeReply({ jsonrpc: '2.0', id, result })).not.toBe(first);
    }
    for (const id of [0, 1, 7, 31]) {
      const first = serializeReply({ jsonrpc: '2.0', id, result });
      expect(serializeReply({ jsonrpc: '2.0', id, result })).toBe(first);
      expect(JSON.parse(first.toString())).toEqual({ jsonrpc: '2.0', id, result });
    }
  });

  it('serialises other results as they are', () => {
    const reply = { jsonrpc: '2.0' as const, id: 7, result: { changing: Math.random() } };
    expect(JSON.parse(serializeReply(reply).toString())).toEqual(reply);
  });
});
