import { existsSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Why the browser tests cannot run here, or undefined when they can. A laptop without Chromium
 * skips them and says so; CI (CI=true) installs Chromium first and never skips them.
 */
export function chromiumMissing(): string | undefined {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(executablePath) || process.env.CI) return undefined;
  return `no Chromium at ${executablePath} (apt-get install chromium, or set CHROMIUM_PATH)`;
}

/** Debian's Chromium, never a downloaded one; flags keep it offline and quiet. */
export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath,
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

/** axe-core over the page as it stands: no serious or critical violation (WCAG 2.x A and AA). */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  const severe = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target).join(', ')})`,
    );
  expect(severe, `accessibility violations on ${page.url()}`).toEqual([]);
}
