import { z } from 'zod';
import { WRAPPER_KINDS } from '../tools/kit/strict-input.ts';
import { objectFormOf } from '../tools/kit/text-or-object.ts';

/** Issues listed in one answer: a call with thousands of bad cells gets the first ones and a count. */
const MAX_ISSUES = 20;
/** Unknown keys named per object, and the characters kept of each: they are the caller's text. */
const MAX_KEYS = 10;
const MAX_KEY_CHARS = 100;

/**
 * Why a tool's arguments were refused, for the model to correct them: an unknown argument is named
 * with the ones the tool (or the nested object) takes — `Unknown argument "dryrun" for set_notes;
 * it takes: spreadsheetId, notes, dryRun` — since a misspelt name is the usual cause; every other
 * problem as zod words it, at its path. Bounded whatever the input.
 */
export function describeInvalidArguments(tool: string, schema: z.ZodObject, error: z.ZodError): string {
  const sentences: string[] = [];
  const others: z.core.$ZodIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code !== 'unrecognized_keys') {
      others.push(issue);
      continue;
    }
    const shown = issue.keys.slice(0, MAX_KEYS).map((key) => JSON.stringify(key.slice(0, MAX_KEY_CHARS)));
    const more = issue.keys.length > MAX_KEYS ? ` and ${issue.keys.length - MAX_KEYS} more` : '';
    const names = `${shown.join(', ')}${more}`;
    const plural = issue.keys.length === 1 ? '' : 's';
    const takes = keysAt(schema, issue.path);
    const taken = takes ? `; it takes: ${takes.join(', ')}` : '';
    sentences.push(
      issue.path.length === 0
        ? `Unknown argument${plural} ${names} for ${tool}${taken}.`
        : `Unknown key${plural} ${names} in ${z.core.toDotPath(issue.path)}${taken}.`,
    );
  }
  const listed = others.slice(0, MAX_ISSUES);
  if (listed.length > 0) {
    const rest = others.length - listed.length;
    sentences.push(
      z.prettifyError({ issues: listed } as z.ZodError) +
        (rest > 0 ? `\n(and ${rest} more problem${rest === 1 ? '' : 's'})` : ''),
    );
  }
  return `invalid arguments: ${sentences.join('\n')}`;
}

/** The keys the object at `path` in the input takes, or undefined when no one object is there. */
function keysAt(schema: z.core.$ZodType, path: PropertyKey[]): string[] | undefined {
  let node: z.core.$ZodType | undefined = schema;
  for (let step = 0; node && step <= path.length; ) {
    const def = node._zod.def as unknown as Record<string, unknown> & { type: string };
    if (WRAPPER_KINDS.has(def.type)) {
      node = def.innerType as z.core.$ZodType;
      continue;
    }
    switch (def.type) {
      case 'pipe':
        // An argument listed as text that takes an object too (kit/text-or-object.ts): that object.
        node = objectFormOf(node) ?? (def.in as z.core.$ZodType);
        continue;
      case 'union': {
        // The options that are objects: the issue can only be in one of them.
        const objects = (def.options as z.core.$ZodType[]).filter(
          (option) => keysAt(option, []) !== undefined,
        );
        node = objects.length === 1 ? objects[0] : undefined;
        continue;
      }
    }
    if (step === path.length) return def.type === 'object' ? Object.keys(def.shape as object) : undefined;
    const key = path[step++];
    if (def.type === 'object') node = (def.shape as Record<PropertyKey, z.core.$ZodType>)[key as string];
    else if (def.type === 'array') node = def.element as z.core.$ZodType;
    else if (def.type === 'record') node = def.valueType as z.core.$ZodType;
    else node = undefined;
  }
  return undefined;
}
