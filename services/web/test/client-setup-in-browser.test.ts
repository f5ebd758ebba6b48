import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PLACEHOLDER, type ClientSetupBlock, clientSetupBlocks } from '../src/html/client-setup.ts';
import {
  type BrowserStack,
  createKeyInDashboard,
  newPerson,
  type Person,
  signInWithGoogle,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing, expectAccessibleInEveryLook } from './support/chromium.ts';

// The dashboard's client setup blocks (issue 21) in Chromium against the whole stack: with a new
// key each block holds it and its Copy button (assets/copy.js, under the page's CSP) puts exactly
// the block's text on the clipboard; every JSON block parses; after a reload the key is gone and
// "Connect a client" keeps the blocks with a placeholder, and an OAuth variant with no key at all.
// test-e2e/client-setup-snippets.test.ts runs the blocks themselves against a stack.

const missing = chromiumMissing();
if (missing) console.warn(`client setup browser tests skipped: ${missing}`);

let env: BrowserStack;
let person: Person;
let endpoint: string;

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack();
  endpoint = `${env.stack.baseUrl}/api/mcp`;
  person = await newPerson(env);
  await person.page.goto(`${env.stack.baseUrl}/login`);
  await signInWithGoogle(person.page, 'alice@example.com');
}, 120_000);

afterAll(async () => {
  await person?.context.close();
  await env?.stop();
});

const clipboard = (page: Page) => page.evaluate<string>('navigator.clipboard.readText()');
const setClipboard = (page: Page, text: string) =>
  page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);

/**
 * Opens each block's disclosure in `region` and presses its Copy button (named `copyLabel` plus
 * `suffix`); what lands on the clipboard and what the page shows must both be the block's text.
 */
async function copyEveryBlock(page: Page, region: Locator, blocks: ClientSetupBlock[], suffix = '') {
  expect(await region.locator('details').count()).toBe(blocks.length);
  for (const block of blocks) {
    const details = region.locator(`details[data-client="${block.id}"]`);
    await details.locator('summary').click();
    expect(await details.locator('summary').textContent()).toBe(block.client);
    expect(await details.locator('pre').textContent()).toBe(block.text);
    if (block.language === 'json') expect(() => JSON.parse(block.text), block.id).not.toThrow();
    await setClipboard(page, 'nothing copied yet');
    await region.getByRole('button', { name: `${block.copyLabel}${suffix}`, exact: true }).click();
    await expect.poll(() => clipboard(page), { timeout: 5_000 }).toBe(block.text);
    expect(await details.getByRole('status').textContent()).toBe('Copied.');
  }
}

describe.skipIf(Boolean(missing))('client setup on the dashboard', { timeout: 90_000 }, () => {
  it('a new key: every block holds it, each Copy button copies exactly its block, every JSON block parses', async () => {
    const { page } = person;
    const secret = await createKeyInDashboard(page, { name: 'Client setup' });
    const blocks = clientSetupBlocks({ endpoint, credential: { apiKey: secret } });
    expect(blocks.map((block) => block.client)).toEqual([
      'Claude Code',
      'VS Code',
      'Cursor',
      'mcp-remote',
      'MCP Inspector',
      'Python SDK',
      'TypeScript SDK',
      'curl',
    ]);
    const region = page.getByRole('region', { name: 'Connect a client with this key' });
    for (const text of await region.locator('pre').allTextContents()) expect(text).toContain(secret);
    await copyEveryBlock(page, region, blocks);
    // Every disclosure open: what axe sees is every block and button.
    await expectAccessibleInEveryLook(page, 'the dashboard with a new key, every client block open');
  });

  it('reaches a block and its Copy button by keyboard alone', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const region = page.getByRole('region', { name: 'With OAuth (no key)' });
    const cursor = clientSetupBlocks({ endpoint, credential: 'oauth' }).find(
      (block) => block.id === 'cursor',
    )!;
    await region.locator('details[data-client="cursor"] summary').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(
      'Copy Cursor configuration for OAuth',
    );
    await setClipboard(page, 'nothing copied yet');
    await page.keyboard.press('Enter');
    await expect.poll(() => clipboard(page), { timeout: 5_000 }).toBe(cursor.text);
  });

  it('after a reload the key is gone; "Connect a client" keeps the blocks with a placeholder, and OAuth ones with no key', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const secret = await createKeyInDashboard(page, { name: 'Reloaded' });
    expect(await page.content()).toContain(secret);
    await page.reload();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Connect a client with this key' }).count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    const withKey = page.getByRole('region', { name: 'With an API key' });
    const placeholderBlocks = clientSetupBlocks({ endpoint, credential: 'api-key-placeholder' });
    for (const block of placeholderBlocks) {
      if (block.id === 'vscode') expect(block.text).toContain('input:sheetgate-api-key');
      else expect(block.text).toContain(API_KEY_PLACEHOLDER);
    }
    await copyEveryBlock(page, withKey, placeholderBlocks, ' for an API key');

    const oauth = page.getByRole('region', { name: 'With OAuth (no key)' });
    const oauthBlocks = clientSetupBlocks({ endpoint, credential: 'oauth' });
    await copyEveryBlock(page, oauth, oauthBlocks, ' for OAuth');
    const oauthText = (await oauth.locator('pre').allTextContents()).join('\n');
    expect(oauthText).toContain(endpoint);
    expect(oauthText.toLowerCase()).not.toContain('x-api-key');
    expect(oauthText).not.toContain(API_KEY_PLACEHOLDER);
    expect(oauthText).not.toMatch(/sg_live_/);
    expect(await page.content()).not.toContain(secret);
  });
});
