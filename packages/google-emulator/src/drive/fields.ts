import { GoogleApiError } from '../google-error.ts';

/** A parsed `fields` mask: `true` selects a whole value, a nested mask selects within it. */
export type FieldMask = Map<string, FieldMask | true>;

function invalidFields(detail: string): GoogleApiError {
  return new GoogleApiError({
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: `Invalid field selection ${detail}`,
    reason: 'invalidParameter',
    location: 'fields',
    locationType: 'parameter',
  });
}

/**
 * Parses Google's partial-response syntax: `a,b/c,d(e,f),*`
 * (https://developers.google.com/drive/api/guides/fields-parameter).
 */
export function parseFieldMask(fields: string): FieldMask {
  let position = 0;
  const parseList = (closing: string | undefined): FieldMask => {
    const mask: FieldMask = new Map();
    for (;;) {
      const match = /^\s*([\w*]+(?:\/[\w*]+)*)\s*/.exec(fields.slice(position));
      if (!match) throw invalidFields(fields.slice(position) || fields);
      position += match[0].length;
      const path = match[1]!.split('/');
      let selection: FieldMask | true = true;
      if (fields[position] === '(') {
        position += 1;
        selection = parseList(')');
        while (fields[position] === ' ') position += 1;
      }
      addPath(mask, path, selection);
      const next = fields[position];
      if (next === ',') {
        position += 1;
        continue;
      }
      if (next === closing) {
        position += 1;
        return mask;
      }
      throw invalidFields(fields);
    }
  };
  return parseList(undefined);
}

function addPath(mask: FieldMask, path: string[], selection: FieldMask | true) {
  const [head, ...rest] = path;
  if (rest.length === 0) {
    const existing = mask.get(head!);
    mask.set(
      head!,
      existing instanceof Map && selection instanceof Map ? merge(existing, selection) : selection,
    );
    return;
  }
  const existing = mask.get(head!);
  const inner = existing instanceof Map ? existing : new Map();
  if (existing !== true) mask.set(head!, inner);
  if (existing !== true) addPath(inner, rest, selection);
}

function merge(a: FieldMask, b: FieldMask): FieldMask {
  const merged = new Map(a);
  for (const [key, value] of b) {
    const existing = merged.get(key);
    merged.set(
      key,
      existing instanceof Map && value instanceof Map
        ? merge(existing, value)
        : value === true
          ? true
          : (existing ?? value),
    );
  }
  return merged;
}

/**
 * Applies a mask to a response. `known` lists the selectable keys at the top level and below
 * (e.g. `files` → the File keys); an unknown key is a 400 as Google answers.
 */
export function applyFieldMask(value: unknown, mask: FieldMask | true, known: KnownFields): unknown {
  if (mask === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => applyFieldMask(item, mask, known));
  const source = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, selection] of mask) {
    if (key === '*') {
      Object.assign(result, source);
      continue;
    }
    if (known.keys && !known.keys.has(key)) throw invalidFields(key);
    if (!(key in source)) continue;
    result[key] = applyFieldMask(source[key], selection, known.nested?.[key] ?? ANY_FIELDS);
  }
  return result;
}

export interface KnownFields {
  /** Selectable keys; any key when absent. */
  keys?: ReadonlySet<string>;
  nested?: Record<string, KnownFields>;
}

const ANY_FIELDS: KnownFields = {};
