/**
 * `pnpm start`'s entry point (docs/design.md §6, §10), in plain JavaScript: a start whose launcher
 * bundle is current (service-bundles.ts; run-stack.ts and what it imports, in one file) never
 * loads Node's TypeScript stripper, whose CPU every start would spend before the services can be
 * spawned. It first turns on Node's compile cache (compile-cache.js; the services started
 * by the stack inherit it), then runs the launcher's bundle, made first if stale.
 */
import module from 'node:module';
import path from 'node:path';
import { currentBundle } from './bundle-manifest.js';
import { compileCacheDir } from './compile-cache.js';

module.enableCompileCache(compileCacheDir());
const launcher = path.join(import.meta.dirname, 'run-stack.ts');
const current = currentBundle(launcher);
if ('entry' in current) {
  await import(current.entry);
} else {
  const { bundledEntry } = await import('./service-bundles.ts');
  const note = (/** @type {string} */ line) => process.stdout.write(`[start] ${line}\n`);
  const bundled = await bundledEntry(launcher, note);
  if (bundled.made) note(`bundled the launcher (${bundled.made})`);
  await import(bundled.entry);
}
