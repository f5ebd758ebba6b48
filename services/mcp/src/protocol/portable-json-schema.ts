/**
 * Tool schemas in the spelling most MCP clients can map: some translate JSON Schema onto a
 * dialect with a single `type` per schema (the OpenAPI subset behind Gemini function declarations,
 * for one) and reject or loosen a tool otherwise. Zod's `toJSONSchema` writes a union of plain
 * types (`.nullable()` included) as a `type` array and an open object's extra properties as `{}`,
 * and its `override` hook runs before that collapse, so the result is rewritten here, by hand:
 * - `type: [A, B]` → `anyOf: [{ type: A }, { type: B }]`, other keywords kept beside it;
 * - `additionalProperties: {}` → `additionalProperties: true` (the same meaning, said plainly).
 * The MCP inspector's `--strict` portability check names both (test-e2e/third-party-clients).
 */
export function portableJsonSchema<Schema>(schema: Schema): Schema {
  return rewrite(schema) as Schema;
}

function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewrite);
  if (!value || typeof value !== 'object') return value;
  const node: Record<string, unknown> = {};
  for (const [keyword, child] of Object.entries(value)) node[keyword] = rewrite(child);
  if (Array.isArray(node.type)) {
    const types = node.type as unknown[];
    delete node.type;
    node.anyOf = types.map((type) => ({ type }));
  }
  const extra = node.additionalProperties;
  if (extra && typeof extra === 'object' && !Array.isArray(extra) && Object.keys(extra).length === 0) {
    node.additionalProperties = true;
  }
  return node;
}
