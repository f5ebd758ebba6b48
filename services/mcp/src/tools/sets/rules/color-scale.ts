/**
 * A conditional format's colour scale as add_conditional_format and update_conditional_format
 * take it: each point one text, its type, its value when the type has one, and its colour
 * (`NUMBER 50 #ff0000`), which tools/list says in one line where an object per point took three
 * schemas (issue 35, item 9). The object a point was before (`{type, value, color}`, what
 * list_conditional_formats shows) is still taken, read into the same text.
 */
import { z } from 'zod';

const POINT_TYPES = ['MIN', 'MAX', 'NUMBER', 'PERCENT', 'PERCENTILE'] as const;
const HEX = /^#[0-9a-fA-F]{6}$/;

export interface ScalePoint {
  type: (typeof POINT_TYPES)[number];
  value?: string;
  color: string;
}

const TAUGHT =
  'a point is its type, a value unless MIN or MAX, and a colour: "MIN #ffffff", "NUMBER 50 #ff0000"';

const pointObject = z.strictObject({
  type: z.enum(POINT_TYPES),
  value: z.union([z.string().max(200), z.number()]).optional(),
  color: z.string().regex(HEX),
});

/** A point given as an object, as text; anything else unchanged, for the text's own checks. */
function pointAsText(given: unknown): unknown {
  if (typeof given !== 'object' || given === null) return given;
  const parsed = pointObject.safeParse(given);
  if (!parsed.success) return given;
  const { type, value, color } = parsed.data;
  return [type, ...(value === undefined ? [] : [String(value)]), color].join(' ');
}

/** A scale whose points are objects, with them as text (a scale that is not an object unchanged). */
function pointsAsText(given: unknown): unknown {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return given;
  return Object.fromEntries(Object.entries(given).map(([name, each]) => [name, pointAsText(each)]));
}

const point = z
  .string({ error: TAUGHT })
  .max(300)
  .transform((text, context): ScalePoint => {
    const words = text.trim().split(/\s+/);
    const type = words[0]!.toUpperCase();
    const color = words.length > 1 ? words.at(-1)! : '';
    if (!(POINT_TYPES as readonly string[]).includes(type) || !HEX.test(color)) {
      context.issues.push({
        code: 'custom',
        message: `${TAUGHT} (types: ${POINT_TYPES.join(', ')})`,
        input: text,
      });
      return z.NEVER;
    }
    const value = words.slice(1, -1).join(' ');
    return { type: type as ScalePoint['type'], ...(value === '' ? {} : { value }), color };
  });

// The object form is read into text before the points are checked, at the scale rather than at
// each point: a point behind a preprocess would be listed as optional.
export const colorScaleInput = z
  .preprocess(pointsAsText, z.object({ min: point, mid: point.optional(), max: point }))
  .describe(
    'Instead of condition and format; each point e.g. "MIN #ffffff", "PERCENT 50 #ffff00", "NUMBER 9 #ff0000".',
  );
