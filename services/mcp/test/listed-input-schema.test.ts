import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listedInputSchema } from '../src/protocol/listed-input-schema.ts';

describe('listedInputSchema', () => {
  it('drops the dialect, safe-integer bounds, string lengths a format’s pattern and a boolean’s default false, and keeps the limits a model plans by', () => {
    const schema = listedInputSchema(
      z.toJSONSchema(
        z.strictObject({
          id: z.string().min(10).max(200),
          index: z.number().int().min(0),
          limit: z.number().int().min(1).max(2_000),
          rows: z.array(z.array(z.string().max(50_000)).max(1_000)).max(100),
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
        index: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 1, maximum: 2_000 },
        rows: {
          type: 'array',
          maxItems: 100,
          items: { type: 'array', maxItems: 1_000, items: { type: 'string' } },
        },
        maximum: { type: 'string' },
        since: { type: 'string', format: 'date-time' },
        code: { type: 'string', pattern: '^[a-z]+$' },
        dryRun: { type: 'boolean' },
        headerRow: { type: 'boolean', default: true },
      },
      required: ['id', 'index', 'limit', 'rows', 'maximum', 'since', 'code'],
      additionalProperties: false,
    });
  });
});
