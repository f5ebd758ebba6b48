/**
 * Google field masks (`spreadsheetId,sheets(properties(sheetId,title))`, `sheets.properties.title`,
 * `userEnteredFormat.textFormat.bold`, `*`): selecting parts of a response, and copying masked
 * fields from a request onto stored state.
 */
import { googleErrors } from '../google-error.ts';

/** A parsed mask: each key selects a field; `true` selects it whole. */
export type FieldTree = Map<string, FieldTree | true>;

export function parseFieldMask(mask: string): FieldTree {
  let position = 0;
  const fail = () => googleErrors.badRequest(`Invalid field selection ${mask}`, 'invalidParameter');
  const parseList = (): FieldTree => {
    const tree: FieldTree = new Map();
    for (;;) {
      const match = /^\s*([A-Za-z0-9_*]+(?:\.[A-Za-z0-9_*]+)*)\s*/.exec(mask.slice(position));
      if (!match) throw fail();
      position += match[0].length;
      const path = (match[1] as string).split('.');
      let subtree: FieldTree | true = true;
      if (mask[position] === '(') {
        position++;
        subtree = parseList();
        if (mask[position] !== ')') throw fail();
        position++;
      }
      addPath(tree, path, subtree);
      while (mask[position] === ' ') position++;
      if (mask[position] !== ',') return tree;
      position++;
    }
  };
  const tree = parseList();
  if (position < mask.length) throw fail();
  return tree;
}

function addPath(tree: FieldTree, path: string[], leaf: FieldTree | true): void {
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) {
    const existing = tree.get(head);
    tree.set(
      head,
      existing instanceof Map && leaf instanceof Map
        ? mergeTrees(existing, leaf)
        : existing === true
          ? true
          : leaf,
    );
    return;
  }
  let child = tree.get(head);
  if (child === true) return;
  if (!child) {
    child = new Map();
    tree.set(head, child);
  }
  addPath(child, rest, leaf);
}

function mergeTrees(a: FieldTree, b: FieldTree): FieldTree {
  const merged: FieldTree = new Map(a);
  for (const [key, value] of b) addPath(merged, [key], value);
  return merged;
}

/** Keeps only the fields a mask selects, applying the mask to each element of arrays. */
export function selectFields(value: unknown, tree: FieldTree | true): unknown {
  if (tree === true || tree.has('*')) return value;
  if (Array.isArray(value)) return value.map((element) => selectFields(element, tree));
  if (value === null || typeof value !== 'object') return value;
  const selected: Record<string, unknown> = {};
  for (const [key, subtree] of tree) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) selected[key] = selectFields(field, subtree);
  }
  return selected;
}

/** The dotted leaf paths of a mask: `a(b,c.d)` → `a.b`, `a.c.d`. */
export function fieldPaths(tree: FieldTree, prefix: string[] = []): string[][] {
  const paths: string[][] = [];
  for (const [key, subtree] of tree) {
    if (subtree === true) paths.push([...prefix, key]);
    else paths.push(...fieldPaths(subtree, [...prefix, key]));
  }
  return paths;
}

/**
 * Copies the masked fields of `source` onto `target` (in place): a field the mask names but the
 * source lacks is cleared, as Google's update requests do. `*` copies every field of the source.
 */
export function applyMaskedUpdate(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  mask: string,
): void {
  const tree = parseFieldMask(mask);
  if (tree.has('*')) {
    for (const key of Object.keys(target)) delete target[key];
    Object.assign(target, structuredClone(source));
    return;
  }
  for (const path of fieldPaths(tree)) {
    const value = getPath(source, path);
    setPath(target, path, value === undefined ? undefined : structuredClone(value));
  }
}

function getPath(source: unknown, path: string[]): unknown {
  let current = source;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current ?? undefined;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  const parents: Array<Record<string, unknown>> = [target];
  let current = target;
  for (const key of path.slice(0, -1)) {
    let next = current[key];
    if (next === null || typeof next !== 'object') {
      if (value === undefined) return;
      next = {};
      current[key] = next;
    }
    current = next as Record<string, unknown>;
    parents.push(current);
  }
  const last = path.at(-1) as string;
  if (value === undefined) delete current[last];
  else current[last] = value;
  // Drop objects left empty by a cleared field, so that a cleared format reads as no format.
  for (let i = parents.length - 1; i > 0; i--) {
    const parent = parents[i - 1] as Record<string, unknown>;
    const key = path[i - 1] as string;
    if (Object.keys(parents[i] as object).length === 0) delete parent[key];
  }
}
