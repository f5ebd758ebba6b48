// Plain JavaScript, like start.js, which loads it before any TypeScript (see there).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Bumped when the way bundles are made changes: older bundles are then made again. */
export const BUNDLE_FORMAT = 3;
export const MANIFEST = 'sheetgate-bundle.json';

/**
 * `<package>/node_modules/.cache/sheetgate-bundle` for a `<package>/src/*.ts` entry: in the
 * package's own node_modules, so that what the bundle still loads at run time resolves as from
 * the package.
 * @param {string} sourceEntry
 * @returns {string}
 */
export function bundleDirOf(sourceEntry) {
  return path.join(path.dirname(path.dirname(sourceEntry)), 'node_modules/.cache/sheetgate-bundle');
}

/**
 * The bundle of `sourceEntry` if it is current (every file it was made from has the size and
 * modification time the manifest says), else why not. Synchronous on purpose: a few thousand
 * `stat` calls are far cheaper this way than as promises, on the way to starting.
 * @param {string} sourceEntry
 * @returns {{ entry: string } | { staleBecause: string }}
 */
export function currentBundle(sourceEntry) {
  const bundleDir = bundleDirOf(sourceEntry);
  /** @type {import('./bundle-manifest.d.ts').BundleManifest} */
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(bundleDir, MANIFEST), 'utf8'));
  } catch {
    return { staleBecause: 'none was made yet' };
  }
  if (manifest.format !== BUNDLE_FORMAT) return { staleBecause: 'it was made another way' };
  const entry = path.join(bundleDir, manifest.build, 'main.mjs');
  if (!statSync(entry, { throwIfNoEntry: false })) return { staleBecause: 'its build is gone' };
  for (const [file, [size, mtimeMs]] of Object.entries(manifest.inputs)) {
    const now = statSync(file, { throwIfNoEntry: false });
    if (!now) return { staleBecause: `${file} is gone` };
    if (now.size !== size || now.mtimeMs !== mtimeMs) return { staleBecause: `${file} changed` };
  }
  return { entry };
}
