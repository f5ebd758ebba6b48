import AxeBuilder from '@axe-core/playwright';
import { chromiumMissing, launchChromium as launchDebianChromium } from '@sheetgate/test-harness';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

export { chromiumMissing };

/** Debian's Chromium with the shared flags (packages/test-harness/src/chromium.ts). */
export function launchChromium(): Promise<Browser> {
  return launchDebianChromium(chromium);
}

const WCAG_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/** The WCAG A/AA rules whose outcome depends on colours: all that dark mode can change. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** The serious and critical WCAG 2.x A/AA violations axe-core finds on the page as it stands. */
async function severeViolations(page: Page, rules?: string[]): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  const results = await (rules ? builder.withRules(rules) : builder.withTags(WCAG_A_AA)).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target).join(', ')})`,
    );
}

export const PHONE = { width: 375, height: 740 };

const bodyBackground = (page: Page) =>
  page.evaluate<string>('getComputedStyle(document.body).backgroundColor');

/**
 * axe-core (WCAG 2.x A and AA; no serious or critical violation) over the page in each way people
 * see it: the page's own viewport in light mode, a phone's width, and dark mode
 * (`prefers-color-scheme: dark`, where the stylesheet swaps every colour, so the colour rules run
 * again). The page is left as it was found.
 */
export async function expectAccessibleInEveryLook(page: Page, state: string): Promise<void> {
  const viewport = page.viewportSize();
  const found: Record<string, string[]> = {};
  try {
    found.light = await severeViolations(page);
    const light = await bodyBackground(page);
    await page.setViewportSize(PHONE);
    found.phone = await severeViolations(page);
    if (viewport) await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await bodyBackground(page), `dark mode has its own colours on ${state}`).not.toBe(light);
    found.dark = await severeViolations(page, COLOUR_RULES);
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
    if (viewport) await page.setViewportSize(viewport);
  }
  const severe = Object.entries(found).flatMap(([look, list]) => list.map((line) => `${look}: ${line}`));
  expect(severe, `accessibility violations on ${state}`).toEqual([]);
}
