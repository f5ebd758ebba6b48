import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const WARM = new URL('../src/warm-compile-cache.ts', import.meta.url).href;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-compile-cache-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** compileWithoutRunning in a process of its own (it enables the cache and registers a hook process-wide). */
function compileInChild(entries: string[], cacheDir: string) {
  const script = `const { compileWithoutRunning } = await import(${JSON.stringify(WARM)});
await compileWithoutRunning(${JSON.stringify(entries)});`;
  return run(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, NODE_COMPILE_CACHE: cacheDir },
  });
}

describe('compiling the bundles ahead (pnpm install)', () => {
  it('fills the compile cache with a module without running it; its first run then uses the cache', async () => {
    const ranMarker = path.join(scratch, 'ran');
    const entry = path.join(scratch, 'entry.mjs');
    await writeFile(
      entry,
      `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(ranMarker)}, 'ran');\nexport const answer = 42;\n`,
    );
    const cacheDir = path.join(scratch, 'cache');
    await compileInChild([entry], cacheDir);
    expect(existsSync(ranMarker)).toBe(false);

    const { stderr } = await run(process.execPath, [entry], {
      env: { ...process.env, NODE_COMPILE_CACHE: cacheDir, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
    });
    expect(stderr).toContain(`V8 code cache for ESM file://${entry} was accepted`);
    expect(existsSync(ranMarker)).toBe(true);
  });

  it('fails on a module that does not compile, naming the error', async () => {
    const broken = path.join(scratch, 'broken.mjs');
    await writeFile(broken, "import fs from 'node:fs';\nexport const = ;\n");
    await expect(compileInChild([broken], path.join(scratch, 'cache-broken'))).rejects.toThrow(/SyntaxError/);
  });
});
