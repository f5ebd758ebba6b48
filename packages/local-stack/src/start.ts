/**
 * `pnpm start`'s entry point (docs/design.md §6, §10): turns on Node's compile cache before any of
 * the stack's own code loads, then runs it (run-stack.ts). Node strips and compiles every
 * TypeScript module of a service at each start — about two seconds of a cold start on a 2-core
 * machine; with the cache a second start loads them in a fraction of that. The cache lives in
 * node_modules/.cache (ignored, per checkout, keyed by each file's contents and Node's version),
 * and the services started by the stack inherit it (child-service.ts).
 */
import module from 'node:module';
import { compileCacheDir } from './compile-cache.ts';

module.enableCompileCache(compileCacheDir());
await import('./run-stack.ts');
