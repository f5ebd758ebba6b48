/**
 * `pnpm install` runs this (the package's `postinstall`, after the database template): every
 * service's bundle made once, and compiled into Node's compile cache, so that the first
 * `pnpm start` runs them at once (service-bundles.ts, warm-compile-cache.ts). Quick when they are
 * current. Never fails the install: a start makes a missing bundle itself, or runs the service
 * from its sources.
 */
import { bundledEntry, launcherSource, serviceSource, stackServices } from './service-bundles.ts';
import { compileWithoutRunning } from './warm-compile-cache.ts';

const started = performance.now();
const bundles = await Promise.all(
  [
    ...stackServices.map((name) => [name, serviceSource(name)] as const),
    ['the launcher', launcherSource] as const,
  ].map(async ([name, source]) => {
    const bundled = await bundledEntry(source, (line) => console.warn(`local-stack: ${line}`));
    return { name, ...bundled, isBundle: bundled.entry !== source };
  }),
);
const made = bundles.filter((bundle) => bundle.made).map((bundle) => bundle.name);
if (made.length > 0)
  console.log(
    `local-stack: bundled ${made.join(', ')} for pnpm start in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
try {
  // The services' bundles; not the launcher's, which runs with another V8 flag (--liftoff-only) and
  // so from another cache, and is small.
  await compileWithoutRunning(
    bundles
      .filter((bundle) => bundle.isBundle && bundle.name !== 'the launcher')
      .map((bundle) => bundle.entry),
  );
} catch (error) {
  console.warn(`local-stack: the bundles were not compiled ahead (${(error as Error).message})`);
}
