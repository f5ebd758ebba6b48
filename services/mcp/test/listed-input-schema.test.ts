import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listedInputSchema } from '../src/protocol/listed-input-schema.ts';

describe('listedInputSchema', () => {
  it('drops the dialect, safe-integer bounds, string lengths, bounds past Sheets’ cells, an integer’s minimum 0, minItems 1, a format’s pattern and a boolean’s default false, and keeps the limits a model plans by', () => {
    const schema = listedInputSchema(
      z.toJSONSchema(
        z.strictObject({
          id: z.string().min(10).max(200),
          index: z.number().int().min(0),
          limit: z.number().int().min(1).max(2_000),
          rows: z.array(z.array(z.string().max(50_000)).max(1_000)).max(100),
          offset: z.number().int().min(0).max(10_000_000),
          ranges: z.array(z.string()).min(1).max(50),
          pair: z.array(z.number()).min(2).max(2),
          share: z.number().min(0).max(1),
          maximum: z.string().max(5),
          since: z.iso.datetime({ offset: true }),
          code: z.string().regex(/^[a-z]+$/),
          dryRun: z.boolean().default(false),
          headerRow: z.boolean().default(true),
        }),
        { io: 'input' },
      ),
    ) as Record<string, unknown>;
    expect(schema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        index: { type: 'integer' },
        limit: { type: 'integer', minimum: 1, maximum: 2_000 },
        rows: {
          type: 'array',
          maxItems: 100,
          items: { type: 'array', maxItems: 1_000, items: { type: 'string' } },
        },
        offset: { type: 'integer' },
        ranges: { type: 'array', maxItems: 50, items: { type: 'string' } },
        pair: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } },
        share: { type: 'number', minimum: 0, maximum: 1 },
        maximum: { type: 'string' },
        since: { type: 'string', format: 'date-time' },
        code: { type: 'string', pattern: '^[a-z]+$' },
        dryRun: { type: 'boolean' },
        headerRow: { type: 'boolean', default: true },
      },
      required: [
        'id',
        'index',
        'limit',
        'rows',
        'offset',
        'ranges',
        'pair',
        'share',
        'maximum',
        'since',
        'code',
      ],
      additionalProperties: false,
    });
  });
});
