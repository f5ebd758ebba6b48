import { z } from 'zod';

type Schema = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };

/** The zod kinds that wrap one schema (`innerType`) and add nothing an input's keys depend on. */
export const WRAPPER_KINDS: ReadonlySet<string> = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'catch',
  'readonly',
  'nonoptional',
]);

/**
 * The same input schema with every object in it, at any depth, refusing keys it does not name
 * (zod's `unrecognized_keys`, and `additionalProperties: false` in tools/list). A plain zod object
 * drops an unknown key silently, so a misspelt or unsupported argument (`dryrun`, or `dryRun` on
 * a tool without one) would be ignored and the call would do what it was asked not to. Objects that
 * say what they accept beyond their keys (`z.looseObject`, a `catchall`: Google's own request
 * bodies in batch_update) keep saying it. Done once, where a tool is defined, rather than by
 * writing `z.strictObject` in every tool, so a new tool cannot forget it.
 */
export function strictInput<Input extends z.ZodObject>(schema: Input): Input {
  const seen = new Map<Schema, Schema>();
  return strict(schema, seen) as Input;
}

function strict(schema: Schema, seen: Map<Schema, Schema>): Schema {
  const done = seen.get(schema);
  if (done) return done;
  const def = schema._zod.def as unknown as Def;
  let changed: Partial<Def> | undefined;
  const inner = (key: string) => {
    const child = def[key] as Schema;
    const mapped = strict(child, seen);
    if (mapped !== child) changed = { ...changed, [key]: mapped };
  };
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, Schema>;
      const newShape: Record<string, Schema> = {};
      let shapeChanged = false;
      for (const [key, child] of Object.entries(shape)) {
        newShape[key] = strict(child, seen);
        if (newShape[key] !== child) shapeChanged = true;
      }
      if (shapeChanged) changed = { shape: newShape };
      if (def.catchall === undefined) changed = { ...changed, catchall: z.never() };
      else inner('catchall');
      break;
    }
    case 'array':
      inner('element');
      break;
    case 'record':
      inner('valueType');
      break;
    case 'union': {
      const options = def.options as Schema[];
      const mapped = options.map((option) => strict(option, seen));
      if (mapped.some((option, index) => option !== options[index])) changed = { options: mapped };
      break;
    }
    case 'pipe':
      inner('in');
      inner('out');
      break;
    default:
      if (WRAPPER_KINDS.has(def.type)) inner('innerType');
    // Leaves (strings, numbers, enums, …) hold no object.
  }
  let result = schema;
  if (changed) {
    // `shape` may be a getter: read it through the spread before the new one replaces it.
    result = new schema._zod.constr({ ...def, ...changed } as never) as Schema;
    // A description lives in zod's registry under the schema it was given to: carry it over.
    const meta = z.globalRegistry.get(schema);
    if (meta) z.globalRegistry.add(result, meta);
  }
  seen.set(schema, result);
  return result;
}
