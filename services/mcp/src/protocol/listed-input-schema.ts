/**
 * A tool's input schema as a model reads it in tools/list (issue 35, item 9: the tool list is paid
 * for in every conversation's context). Dropped, because they tell a model nothing it can use:
 * - the root `$schema`: MCP takes JSON Schema 2020-12 when none is named (SEP-1613), which is what
 *   zod writes;
 * - zod's safe-integer bounds on every `.int()` (±2^53−1), which no argument comes near;
 * - the length bounds of strings (an id's, a title's, a cell's): the tool's own validation still
 *   holds them and refuses past one in words;
 * - a number's bound at or past Sheets' cell limit (a row offset's), which no tab reaches,
 *   and an integer's `minimum: 0`: no id, index or count is negative, and where counting from 0
 *   matters the description says so;
 * - an array's `minItems: 1`: an empty list is refused in words, and says nothing a model would
 *   send it for. The other bounds of arrays and numbers stay: they are the per-call limits a model
 *   plans by;
 * - the pattern zod writes beside a `format` (a date-time's), which says the same at length;
 * - `default: false` of a boolean, which is what leaving it out means anyway.
 */
export function listedInputSchema<Schema>(schema: Schema): Schema {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return strip(rest) as Schema;
}

const SAFE = Number.MAX_SAFE_INTEGER;
/** The most cells a spreadsheet holds (Google's limit): no row or offset reaches past it. */
const SHEETS_CELL_LIMIT = 10_000_000;

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (!value || typeof value !== 'object') return value;
  const node: Record<string, unknown> = {};
  for (const [keyword, child] of Object.entries(value)) {
    if ((keyword === 'maximum' && child === SAFE) || (keyword === 'minimum' && child === -SAFE)) continue;
    if (keyword === 'maximum' && typeof child === 'number' && child >= SHEETS_CELL_LIMIT) continue;
    const { type, format } = value as { type?: unknown; format?: unknown };
    if (keyword === 'minimum' && child === 0 && type === 'integer') continue;
    if (keyword === 'minItems' && child === 1) continue;
    if ((keyword === 'minLength' || keyword === 'maxLength') && type === 'string') continue;
    if (keyword === 'pattern' && format !== undefined) continue;
    if (keyword === 'default' && child === false && type === 'boolean') continue;
    // A property named like a keyword (`properties.maximum`) is a schema, never a bound.
    node[keyword] = keyword === 'properties' ? mapValues(child, strip) : strip(child);
  }
  return node;
}

function mapValues(properties: unknown, map: (value: unknown) => unknown): unknown {
  if (!properties || typeof properties !== 'object') return properties;
  return Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, map(child)]));
}
