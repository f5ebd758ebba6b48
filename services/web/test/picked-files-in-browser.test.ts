import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  newPerson,
  type Person,
  signInWithGoogle,
  startBrowserStack,
} from './support/browser-stack.ts';
import { chromiumMissing, expectAccessibleInEveryLook } from './support/chromium.ts';

// The dashboard of GOOGLE_SCOPE_MODE=picked-files (docs/design.md §7.8) in Chromium, for everyone:
// "Spreadsheets Sheetgate can reach" with its Choose spreadsheets button and the chosen files'
// list passes axe-core (WCAG 2.x A/AA) light, on a phone and dark, and says what Remove does.

const missing = chromiumMissing();
if (missing) console.warn(`picked-files dashboard browser tests skipped: ${missing}`);

let env: BrowserStack;
let person: Person;

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack({ GOOGLE_SCOPE_MODE: 'picked-files' });
  const seeded = await fetch(`${env.stack.emulatorUrl}/__emulator/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: 'alice@example.com',
      files: [{ name: 'Quarterly budget with a rather long name', values: [['rent']] }],
    }),
  });
  expect(seeded.status).toBe(201);
  person = await newPerson(env);
  await person.page.goto(`${env.stack.baseUrl}/login`);
  await signInWithGoogle(person.page, 'alice@example.com');
}, 120_000);

afterAll(async () => {
  await person?.context.close();
  await env?.stop();
});

describe.skipIf(Boolean(missing))('the picked-files dashboard', () => {
  it('is accessible before anything is chosen, with the Picker’s button shown by its script', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    await expect.poll(() => page.getByRole('button', { name: 'Choose spreadsheets' }).isVisible()).toBe(true);
    expect(await page.locator('#picker-needs-script').isHidden()).toBe(true);
    await expectAccessibleInEveryLook(page, 'the picked-files dashboard, nothing chosen');
  });

  it('lists a chosen spreadsheet with Remove, accessibly', async () => {
    const { page } = person;
    await page.getByRole('button', { name: 'Choose spreadsheets' }).click();
    const picker = page.frameLocator('iframe[title="Google Picker"]');
    await picker.getByLabel('Quarterly budget with a rather long name').check();
    await picker.getByRole('button', { name: 'Select' }).click();
    await page.waitForURL(/notice=files_chosen/);
    const section = page.getByRole('region', { name: 'Spreadsheets Sheetgate can reach' });
    expect(
      await section.getByRole('button', { name: 'Remove Quarterly budget with a rather long name' }).count(),
    ).toBe(1);
    expect(await section.textContent()).toContain('Third-party apps & services in your Google Account');
    await expectAccessibleInEveryLook(page, 'the picked-files dashboard with a chosen spreadsheet');
  });
});
