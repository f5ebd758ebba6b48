// Plain JavaScript, like start.js, which loads it before any TypeScript (see there).
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/**
 * Where Node keeps compiled modules between starts (Node's NODE_COMPILE_CACHE): the operator's
 * own choice when set, else a folder of this checkout's node_modules/.cache.
 * @returns {string}
 */
export function compileCacheDir() {
  return process.env.NODE_COMPILE_CACHE || path.join(repoRoot, 'node_modules/.cache/node-compile-cache');
}
