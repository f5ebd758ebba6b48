import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Where Node keeps compiled modules between starts (Node's NODE_COMPILE_CACHE): the operator's
 * own choice when set, else a folder of this checkout's node_modules/.cache.
 */
export function compileCacheDir(): string {
  return process.env.NODE_COMPILE_CACHE || path.join(repoRoot, 'node_modules/.cache/node-compile-cache');
}
