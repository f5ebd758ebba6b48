/**
 * `pnpm install` runs this (the package's `postinstall`, after the database template): every
 * service's bundle made once, so that the first `pnpm start` runs them at once
 * (service-bundles.ts). Quick when they are current. Never fails the install: a start makes a
 * missing bundle itself, or runs the service from its sources.
 */
import { bundledEntry, launcherSource, serviceSource, stackServices } from './service-bundles.ts';

const started = performance.now();
const made = await Promise.all(
  [
    ...stackServices.map((name) => [name, serviceSource(name)] as const),
    ['the launcher', launcherSource] as const,
  ].map(async ([name, source]) => {
    const bundled = await bundledEntry(source, (line) => console.warn(`local-stack: ${line}`));
    return bundled.made ? name : undefined;
  }),
);
const names = made.filter((name) => name !== undefined);
if (names.length > 0)
  console.log(
    `local-stack: bundled ${names.join(', ')} for pnpm start in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
