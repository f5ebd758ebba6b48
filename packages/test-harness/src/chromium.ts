import { existsSync } from 'node:fs';

const executablePath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or undefined when they can. A laptop without Chromium
 * skips them and says so; CI (CI=true) installs Chromium first and never skips them.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(executablePath()) || process.env.CI) return undefined;
  return `no Chromium at ${executablePath()} (apt-get install chromium, or set CHROMIUM_PATH)`;
}

/** What `launchChromium` needs of Playwright's `chromium` (the caller's own playwright-core). */
export interface ChromiumLauncher<Browser> {
  launch(options: { executablePath: string; args: string[] }): Promise<Browser>;
}

/**
 * Debian's Chromium, never a downloaded one; flags keep it offline and quiet. Playwright's
 * `chromium` is passed in so this package needs no browser library of its own.
 */
export function launchChromium<Browser>(chromium: ChromiumLauncher<Browser>): Promise<Browser> {
  const path = executablePath();
  if (!existsSync(path)) {
    throw new Error(`no Chromium at ${path}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: path,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
