import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { portableJsonSchema } from '../src/protocol/portable-json-schema.ts';

describe('portableJsonSchema', () => {
  it('spells nullable and multi-type schemas as anyOf, and open objects as additionalProperties: true', () => {
    const schema = portableJsonSchema(
      z.toJSONSchema(
        z.object({
          cursor: z.string().nullable(),
          cells: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])),
          request: z.record(z.string(), z.looseObject({})),
        }),
      ),
    ) as { properties: Record<string, Record<string, unknown>> };
    expect(schema.properties.cursor).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(schema.properties.cells).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
    });
    expect(schema.properties.request!.additionalProperties).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: true,
    });
  });

  it('leaves a schema without those spellings as it was, and does not change its input', () => {
    const original = z.toJSONSchema(z.object({ name: z.string().max(5), size: z.number().int() }));
    const copy = structuredClone(original);
    expect(portableJsonSchema(original)).toEqual(copy);
    expect(original).toEqual(copy);
  });
});
