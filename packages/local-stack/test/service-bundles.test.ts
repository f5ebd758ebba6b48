import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDirOf } from '../src/bundle-manifest.js';
import { bundledEntry } from '../src/service-bundles.ts';

// `pnpm start` runs each service from a bundle (service-bundles.ts). A package made here stands in
// for a service: TypeScript that finds a file beside it by `import.meta.url`, and a CommonJS
// dependency that answers its own `__dirname`, the two ways the services and their libraries find
// their files.

const run = promisify(execFile);
let scratch: string;
let pkg: string;
let sourceEntry: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-bundles-'));
  pkg = path.join(scratch, 'service');
  sourceEntry = path.join(pkg, 'src/main.ts');
  await mkdir(path.join(pkg, 'src'), { recursive: true });
  await mkdir(path.join(pkg, 'node_modules/cjs-dep'), { recursive: true });
  await writeFile(path.join(pkg, 'package.json'), '{"type":"module"}');
  await writeFile(
    path.join(pkg, 'node_modules/cjs-dep/package.json'),
    '{"name":"cjs-dep","main":"index.js"}',
  );
  await writeFile(path.join(pkg, 'node_modules/cjs-dep/index.js'), 'module.exports = { dir: __dirname };\n');
  await writeFile(path.join(pkg, 'src/beside.txt'), 'found beside the source');
  await writeFile(path.join(pkg, 'src/greeting.ts'), "export const greeting: string = 'first';\n");
  await writeFile(
    path.join(pkg, 'src/main.ts'),
    [
      "import { readFileSync } from 'node:fs';",
      "import http, { createServer } from 'node:http';",
      "import dep from 'cjs-dep';",
      "import { greeting } from './greeting.ts';",
      "const beside: string = readFileSync(new URL('./beside.txt', import.meta.url), 'utf8');",
      "const undiciLoaded = Symbol.for('undici.globalDispatcher.1') in globalThis;",
      'const httpWorks = typeof createServer === "function" && createServer === http.createServer;',
      'console.log(JSON.stringify({ greeting, beside, url: import.meta.url, depDir: dep.dir, httpWorks, undiciLoaded }));',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function runEntry(entry: string) {
  const { stdout } = await run(process.execPath, [entry]);
  return JSON.parse(stdout);
}

describe('service bundles', () => {
  it('makes a bundle that runs as the sources do, each module keeping its own location', async () => {
    const notes: string[] = [];
    const bundled = await bundledEntry(sourceEntry, (line) => notes.push(line));
    expect(notes).toEqual([]);
    expect(bundled.made).toMatch(/^none was made yet; made in [\d.]+ s$/);
    expect(bundled.entry.startsWith(bundleDirOf(sourceEntry))).toBe(true);
    expect(bundled.entry).toMatch(/main\.mjs$/); // ESM by its name alone: no syntax detection
    expect(await runEntry(bundled.entry)).toEqual({
      greeting: 'first',
      beside: 'found beside the source',
      url: pathToFileURL(sourceEntry).href,
      depDir: path.join(pkg, 'node_modules/cjs-dep'),
      httpWorks: true,
      // From its sources, the import of node:http alone loads Node's fetch client (~80 ms of CPU).
      undiciLoaded: false,
    });
    expect((await runEntry(sourceEntry)).undiciLoaded).toBe(true);
  });

  it('uses the bundle while its files are unchanged, and makes it again when one changes', async () => {
    const current = await bundledEntry(sourceEntry, () => {});
    expect(current.made).toBeUndefined();
    expect(await bundledEntry(sourceEntry, () => {})).toEqual(current);

    await writeFile(path.join(pkg, 'src/greeting.ts'), "export const greeting: string = 'second';\n");
    // A change within the same second must count too: the modification time is compared exactly.
    const later = new Date(Date.now() + 5_000);
    await utimes(path.join(pkg, 'src/greeting.ts'), later, later);
    const remade = await bundledEntry(sourceEntry, () => {});
    expect(remade.made).toContain(`${path.join(pkg, 'src/greeting.ts')} changed`);
    expect(remade.entry).not.toBe(current.entry);
    expect((await runEntry(remade.entry)).greeting).toBe('second');
    // A dependency's file counts as the service's own do.
    await writeFile(
      path.join(pkg, 'node_modules/cjs-dep/index.js'),
      'module.exports = { dir: "changed" };\n',
    );
    const again = await bundledEntry(sourceEntry, () => {});
    expect(again.made).toContain('cjs-dep/index.js changed');
    expect((await runEntry(again.entry)).depDir).toBe('changed');
  });

  it('removes builds beyond the two newest once they are ten minutes old, never the current one', async () => {
    const builds = async () =>
      (await readdir(bundleDirOf(sourceEntry))).filter((name) => name.startsWith('build-'));
    const rebuild = async (round: string) => {
      await writeFile(path.join(pkg, 'src/greeting.ts'), `export const greeting: string = '${round}';\n`);
      const bundled = await bundledEntry(sourceEntry, () => {});
      expect(bundled.made).toBeDefined();
      return path.basename(path.dirname(bundled.entry));
    };
    for (const round of ['a', 'b', 'c']) await rebuild(round);
    // Young builds stay: a stack starting beside this one may have just made one of them.
    const young = await builds();
    expect(young.length).toBeGreaterThan(3);
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of young) await utimes(path.join(bundleDirOf(sourceEntry), name), hourAgo, hourAgo);
    const current = await rebuild('d');
    const kept = await builds();
    expect(kept).toHaveLength(3);
    expect(kept).toContain(current);
  });

  it('runs a service from its sources, saying why, when it cannot be bundled', async () => {
    const broken = path.join(scratch, 'broken/src/main.ts');
    await mkdir(path.dirname(broken), { recursive: true });
    await writeFile(broken, "import { missing } from './not-there.ts';\nconsole.log(missing);\n");
    const notes: string[] = [];
    const bundled = await bundledEntry(broken, (line) => notes.push(line));
    expect(bundled).toEqual({ entry: broken });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^could not bundle .*broken\/src\/main\.ts \(.+\); running it from its sources$/s,
    );
  });
});
