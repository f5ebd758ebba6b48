import { z } from 'zod';

/**
 * The object form behind each argument made by textOrObject, for the refusal of a key it lacks.
 * strictInput keeps these schemas as they are (they hold no object of their own to make strict).
 */
const objectForms = new WeakMap<z.core.$ZodType, z.core.$ZodType>();

/**
 * An argument tools/list names as text alone (issue 35, item 9: one line where an object took a
 * schema of its own), still taking the object it was before: a valid object is read into the text
 * that means the same (`asText`), and an object with an unknown or bad key is refused as the
 * object, naming the key (protocol/invalid-arguments.ts finds the keys it takes here).
 */
export function textOrObject<Shape extends z.ZodRawShape>(
  object: z.ZodObject<Shape>,
  asText: (value: z.infer<z.ZodObject<Shape>>) => string,
  text: z.ZodString,
) {
  const strict = object.strict();
  const loose = object.strip();
  const schema = z.preprocess((given, context) => {
    if (typeof given !== 'object' || given === null || Array.isArray(given)) return given;
    const parsed = strict.safeParse(given);
    if (parsed.success) return asText(parsed.data);
    for (const issue of parsed.error.issues) context.addIssue(issue as z.core.$ZodRawIssue);
    // Only unknown keys: the rest read as text, so that the refusal names the keys alone (zod
    // goes on past an unknown key; the text is never used, the call being refused).
    const known = loose.safeParse(given);
    return known.success ? asText(known.data) : given;
  }, text);
  objectForms.set(schema, strict);
  return schema;
}

/** The object an argument made by textOrObject also takes. */
export function objectFormOf(schema: z.core.$ZodType): z.core.$ZodType | undefined {
  return objectForms.get(schema);
}
