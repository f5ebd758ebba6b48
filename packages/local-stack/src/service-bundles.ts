/**
 * Each service `pnpm start` runs, bundled into one module graph of a few files (docs/design.md §10).
 * From its sources a service loads 500–950 modules (its own TypeScript, oidc-provider, grpc-js,
 * googleapis, zod, OpenTelemetry's API …), and Node's module loader spends more CPU resolving,
 * reading and linking them than the service spends starting: on a 2-core machine, where four
 * services and PGlite start at once, that was most of `pnpm start`'s wait; bundled, a service
 * starts in about half the CPU (docs/benchmarks.md).
 *
 * Rolldown (a well-kept bundler) does the bundling; written here is only when to bundle: a bundle
 * is used while every file it was made from is unchanged (size and modification time, checked at
 * each start: a few milliseconds), and is made again, by the start that finds it stale, otherwise.
 * `pnpm install` makes them first (prepare-service-bundles.ts). Each bundle lives in its service's
 * node_modules/.cache, so that what it still loads at run time (a lazily required package, a
 * worker file) resolves as from the service's own folder; and each module keeps its own location
 * (`import.meta.url`, `__dirname`), which the services and their libraries use to find their
 * files (migrations, page assets, protos). Source maps are written beside the bundle: set
 * NODE_OPTIONS=--enable-source-maps for stack traces that name the TypeScript sources (it adds
 * to every service's start CPU, so it is not the default).
 */
import { statSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin, RolldownOutput } from 'rolldown';
import {
  BUNDLE_FORMAT,
  type BundleManifest,
  bundleDirOf,
  currentBundle,
  MANIFEST,
} from './bundle-manifest.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The processes `pnpm start` runs, by the name its log gives them, and their entry modules. */
const SERVICE_SOURCES = {
  auth: 'services/auth/src/main.ts',
  google: 'packages/google-emulator/src/main.ts',
  mcp: 'services/mcp/src/main.ts',
  web: 'services/web/src/main.ts',
} as const;
export type StackService = keyof typeof SERVICE_SOURCES;
export const stackServices = Object.keys(SERVICE_SOURCES) as StackService[];
export const serviceSource = (name: StackService): string => path.join(repoRoot, SERVICE_SOURCES[name]);
/** The launcher itself (start.js runs its bundle). */
export const launcherSource = path.join(repoRoot, 'packages/local-stack/src/run-stack.ts');
/**
 * Left out of every bundle, loaded as installed: PGlite (the launcher's) finds its WASM and data
 * files beside its own modules, and is few modules.
 */
const EXTERNAL = [/^@electric-sql\/pglite/];

/**
 * Builds kept besides the current one: a stack still running may load a lazy chunk of its build,
 * and one starting beside this one (tests start stacks in parallel) may have just made its own.
 */
const KEPT_OLD_BUILDS = 2;
const KEPT_BUILD_AGE_MS = 10 * 60_000;

export interface BundledEntry {
  /** The module to run: the bundle's entry, or the sources' when bundling failed. */
  entry: string;
  /** Set when this start made the bundle: why, and how long it took. */
  made?: string;
}

/**
 * The bundled entry of `sourceEntry`, made first if missing or stale. A bundle that cannot be made
 * is reported through `onNote`, and the service runs from its sources.
 */
export async function bundledEntry(
  sourceEntry: string,
  onNote: (line: string) => void,
): Promise<BundledEntry> {
  const current = currentBundle(sourceEntry);
  if ('entry' in current) return current;
  try {
    const started = performance.now();
    const entry = await makeBundle(sourceEntry, bundleDirOf(sourceEntry));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    return { entry, made: `${current.staleBecause}; made in ${seconds} s` };
  } catch (error) {
    onNote(`could not bundle ${sourceEntry} (${(error as Error).message}); running it from its sources`);
    return { entry: sourceEntry };
  }
}

/**
 * Bundles `sourceEntry` into a new build folder and makes it current by replacing the manifest
 * (a rename, so that stacks starting at the same time see the old build or the new one, whole).
 */
async function makeBundle(sourceEntry: string, bundleDir: string): Promise<string> {
  // Loaded only to make a bundle: a start whose bundles are current never pays for it.
  const { rolldown } = await import('rolldown');
  /** Each input's size and modification time when the build read it. */
  const inputs = new Map<string, [size: number, mtimeMs: number] | undefined>();
  const build = `build-${Date.now().toString(36)}-${process.pid}`;
  const outDir = path.join(bundleDir, build);
  await mkdir(bundleDir, { recursive: true });
  const bundle = await rolldown({
    input: { main: sourceEntry },
    platform: 'node',
    plugins: [ownLocations(inputs), httpWithoutUndici()],
    external: EXTERNAL,
    // Warnings (a library's eval, a circular import) change nothing here: the services' own tests
    // run these bundles.
    onLog: () => {},
  });
  let output: RolldownOutput;
  try {
    output = await bundle.write({
      dir: outDir,
      format: 'esm',
      // .mjs: a bundle's folder is inside node_modules, where Node finds no package.json "type", and
      // for a .js file there it first compiled the whole bundle as CommonJS, then read it again to
      // detect ESM syntax: compiled twice per service.
      entryFileNames: '[name].mjs',
      chunkFileNames: '[name]-[hash].mjs',
      sourcemap: true,
    });
  } finally {
    await bundle.close();
  }
  for (const chunk of output.output)
    if (chunk.type === 'chunk')
      for (const id of chunk.moduleIds) if (!inputs.has(id)) inputs.set(id, undefined);
  const manifest: BundleManifest = { format: BUNDLE_FORMAT, build, inputs: {} };
  for (const [file, read] of [...inputs].filter(([id]) => path.isAbsolute(id)).sort()) {
    // As read (a file saved during the build then counts as changed), else as it is now.
    const { size, mtimeMs } = read ? { size: read[0], mtimeMs: read[1] } : await stat(file);
    manifest.inputs[file] = [size, mtimeMs];
  }
  const partial = path.join(bundleDir, `${MANIFEST}.${process.pid}.partial`);
  await writeFile(partial, JSON.stringify(manifest));
  await rename(partial, path.join(bundleDir, MANIFEST));
  await removeOldBuilds(bundleDir, build);
  return path.join(outDir, 'main.mjs');
}

/**
 * Keeps each module's own location once bundled: `import.meta.url` (and `.dirname`, `.filename`)
 * and CommonJS's `__dirname` and `__filename` become the module's source path, not the bundle's.
 * Rolldown rewrites neither for an ESM output. Also records every module read, for the manifest.
 */
function ownLocations(inputs: Map<string, [size: number, mtimeMs: number] | undefined>): Plugin {
  return {
    name: 'sheetgate-own-locations',
    transform(code, id) {
      if (!path.isAbsolute(id)) return null;
      const read = statSync(id, { throwIfNoEntry: false });
      inputs.set(id, read ? [read.size, read.mtimeMs] : undefined);
      const locations = { url: pathToFileURL(id).href, dirname: path.dirname(id), filename: id };
      let changed = code.replace(
        /\bimport\.meta\.(url|dirname|filename)\b/g,
        (_match, name: keyof typeof locations) => JSON.stringify(locations[name]),
      );
      const free = (['__dirname', '__filename'] as const).filter(
        (name) =>
          new RegExp(`\\b${name}\\b`).test(changed) &&
          !new RegExp(`\\b(?:var|let|const|function)\\s+${name}\\b`).test(changed),
      );
      if (free.length > 0) {
        const declaration = `var ${free
          .map((name) => `${name} = ${JSON.stringify(name === '__dirname' ? locations.dirname : id)}`)
          .join(', ')};`;
        // On the first line (after a shebang), so that the source map's lines still match.
        const shebang = changed.startsWith('#!') ? changed.indexOf('\n') + 1 : 0;
        changed = `${changed.slice(0, shebang)}${declaration}${changed.slice(shebang)}`;
      }
      return changed === code ? null : { code: changed };
    },
  };
}

const NODE_HTTP = '\0sheetgate:node-http';
/** node:http's properties that load Node's fetch client (undici) when read. */
const UNDICI_GETTERS = new Set(['WebSocket', 'CloseEvent', 'MessageEvent']);

/**
 * Imports of `node:http` served by `process.getBuiltinModule` instead. An ES import of a built-in
 * module reads every property to make its namespace, and node:http's WebSocket, CloseEvent and
 * MessageEvent getters then load undici: CPU at every process's start, for classes nothing
 * here uses from there (the bundle fails to build, and the service runs from its sources, should
 * a module ever import one of them). CommonJS `require` never had the cost.
 */
function httpWithoutUndici(): Plugin {
  return {
    name: 'sheetgate-http-without-undici',
    resolveId(source, _importer, options) {
      if ((source === 'node:http' || source === 'http') && options.kind !== 'require-call') return NODE_HTTP;
      return null;
    },
    load(id) {
      if (id !== NODE_HTTP) return null;
      const names = Object.keys(process.getBuiltinModule('node:http')).filter(
        (name) => !UNDICI_GETTERS.has(name),
      );
      return [
        "const http = process.getBuiltinModule('node:http');",
        'export default http;',
        `export const { ${names.join(', ')} } = http;`,
      ].join('\n');
    },
  };
}

async function removeOldBuilds(bundleDir: string, current: string): Promise<void> {
  const builds = (await readdir(bundleDir)).filter((name) => name.startsWith('build-') && name !== current);
  const byAge = await Promise.all(
    builds.map(async (name) => ({ name, mtimeMs: (await stat(path.join(bundleDir, name))).mtimeMs })),
  );
  byAge.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const { name, mtimeMs } of byAge.slice(KEPT_OLD_BUILDS))
    if (Date.now() - mtimeMs > KEPT_BUILD_AGE_MS)
      await rm(path.join(bundleDir, name), { recursive: true, force: true });
}
