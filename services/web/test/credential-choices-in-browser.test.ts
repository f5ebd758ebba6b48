import type { CredentialChoices } from '@sheetgate/proto';
import { type RunningService, startServiceProcess, withFreePorts } from '@sheetgate/test-harness';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrowserStack,
  createKeyInDashboard,
  newPerson,
  type Person,
  sessionCookieOf,
  signInWithGoogle,
  startBrowserStack,
  storedKeys,
} from './support/browser-stack.ts';
import { chromiumMissing, expectAccessibleInEveryLook } from './support/chromium.ts';
import { authorizationRequest, registerClient } from './support/oauth-app.ts';

// A credential's two choices (docs/design.md §11.10) in Chromium against the whole stack: the
// Create API key form and the consent screen offer them with their defaults (sharing outside off,
// deleting unasked on) and auth stores what was posted; each dashboard row changes them in place,
// by keyboard alone; and the operator's ceiling is shown only when it forbids something.

const OUTBOUND = 'May share and send outside your account';
const DESTROY = 'A client that cannot ask me may delete and clear without asking';
const CEILING_HEADING = 'What this server does not allow';

const missing = chromiumMissing();
if (missing) console.warn(`credential choice browser tests skipped: ${missing}`);

let env: BrowserStack;
let person: Person;

beforeAll(async () => {
  if (missing) return;
  env = await startBrowserStack();
  person = await newPerson(env);
  await person.page.goto(`${env.stack.baseUrl}/login`);
  await signInWithGoogle(person.page, 'alice@example.com');
}, 120_000);

afterAll(async () => {
  await person?.context.close();
  await env?.stop();
});

async function storedKeyChoices(name: string): Promise<CredentialChoices | undefined> {
  return (await storedKeys(env, person.context)).find((key) => key.name === name && !key.revokedAt)?.choices;
}

async function storedAppChoices(clientId: string): Promise<CredentialChoices | undefined> {
  const sessionCookie = await sessionCookieOf(person.context, env.stack.baseUrl);
  const { apps } = await env.accounts.listConnectedApps({ sessionCookie });
  return apps.find((app) => app.clientId === clientId)?.choices;
}

/** The dashboard row's two boxes, checked or not, as the page shows them. */
async function rowChoices(page: Page, rowSelector: string): Promise<CredentialChoices> {
  const row = page.locator(rowSelector);
  return {
    mayActOutbound: await row.getByRole('checkbox', { name: OUTBOUND }).isChecked(),
    mayDestroyUnasked: await row.getByRole('checkbox', { name: DESTROY }).isChecked(),
  };
}

/** What has the focus: its name attribute or accessible label, and the dashboard row it is in. */
const focused = (page: Page) =>
  page.evaluate<{ name: string; row: string }>(`(() => {
    const element = document.activeElement;
    const row = element?.closest('tr');
    return {
      name: element?.getAttribute('name') ?? element?.getAttribute('aria-label') ?? '',
      row: row?.getAttribute('data-key-id') ?? row?.getAttribute('data-client-id') ?? '',
    };
  })()`);

/** Presses Tab (only) until `name` in row `row` has the focus. */
async function tabTo(page: Page, row: string, name: string): Promise<void> {
  for (let presses = 0; presses < 300; presses++) {
    const now = await focused(page);
    if (now.row === row && now.name === name) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${name} in row ${row}`);
}

describe.skipIf(Boolean(missing))('the choices on the Create API key form', { timeout: 240_000 }, () => {
  it('are their own group, sharing outside unticked and deleting unasked ticked, each saying what it covers', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const group = page
      .getByRole('form', { name: 'Create API key' })
      .getByRole('group', { name: 'Sharing and deleting' });
    const outbound = group.getByRole('checkbox', { name: OUTBOUND });
    const destroy = group.getByRole('checkbox', { name: DESTROY });
    expect(await outbound.getAttribute('name')).toBe('may_act_outbound');
    expect(await destroy.getAttribute('name')).toBe('may_destroy_unasked');
    expect(await outbound.isChecked()).toBe(false);
    expect(await destroy.isChecked()).toBe(true);
    const outboundHint = await page
      .locator(`#${await outbound.getAttribute('aria-describedby')}`)
      .textContent();
    for (const covered of [
      'outside your organisation',
      'anyone with the link',
      'sharing e-mails',
      'comments that notify others',
      'formulas that fetch from the web',
      'files owned outside',
    ])
      expect(outboundHint).toContain(covered);
    const destroyHint = await page
      .locator(`#${await destroy.getAttribute('aria-describedby')}`)
      .textContent();
    expect(destroyHint).toContain('Every change can be undone from Activity');
  });

  it('a key created as the form stands gets the defaults; one with both boxes turned gets that, and its row shows it', async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    await createKeyInDashboard(page, { name: 'Plain key' });
    expect(await storedKeyChoices('Plain key')).toEqual({ mayActOutbound: false, mayDestroyUnasked: true });

    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const group = page
      .getByRole('form', { name: 'Create API key' })
      .getByRole('group', { name: 'Sharing and deleting' });
    await group.getByRole('checkbox', { name: OUTBOUND }).check();
    await group.getByRole('checkbox', { name: DESTROY }).uncheck();
    await createKeyInDashboard(page, { name: 'Sharing key' });
    expect(await storedKeyChoices('Sharing key')).toEqual({ mayActOutbound: true, mayDestroyUnasked: false });

    await page.goto(`${env.stack.baseUrl}/dashboard`);
    expect(await rowChoices(page, 'tr:has-text("Sharing key")')).toEqual({
      mayActOutbound: true,
      mayDestroyUnasked: false,
    });
    expect(await rowChoices(page, 'tr:has-text("Plain key")')).toEqual({
      mayActOutbound: false,
      mayDestroyUnasked: true,
    });
  });
});

describe.skipIf(Boolean(missing))('the choices on the consent screen', { timeout: 240_000 }, () => {
  let clientId: string;

  async function openConsent() {
    const request = authorizationRequest(env.stack.baseUrl, clientId, env.redirectUri);
    await person.page.goto(request.url);
    await person.page.waitForURL(/\/authorize\?interaction=/);
    const form = person.page.getByRole('form', { name: 'Allow or deny' });
    return {
      form,
      outbound: form
        .getByRole('group', { name: 'Sharing and deleting' })
        .getByRole('checkbox', { name: OUTBOUND }),
      destroy: form
        .getByRole('group', { name: 'Sharing and deleting' })
        .getByRole('checkbox', { name: DESTROY }),
    };
  }

  async function allow(): Promise<void> {
    await person.page.getByRole('button', { name: 'Allow' }).click();
    await person.page.waitForURL((url) => url.href.startsWith(env.redirectUri));
  }

  it('shows the defaults inside the Allow form, says they were offered, and auth keeps what Allow sent', async () => {
    clientId = await registerClient(env.stack.baseUrl, 'Choosing Helper', env.redirectUri);
    const { form, outbound, destroy } = await openConsent();
    expect(await outbound.isChecked()).toBe(false);
    expect(await destroy.isChecked()).toBe(true);
    expect(await outbound.getAttribute('name')).toBe('may_act_outbound');
    expect(await destroy.getAttribute('name')).toBe('may_destroy_unasked');
    expect(await form.locator('input[type=hidden][name=choices_offered]').getAttribute('value')).toBe('1');
    await expectAccessibleInEveryLook(person.page, 'the consent screen with the choices');

    await outbound.check();
    await allow();
    expect(await storedAppChoices(clientId)).toEqual({ mayActOutbound: true, mayDestroyUnasked: true });
  });

  it('asked again (a loopback app), the screen shows the earlier choice, and a new Allow replaces it', async () => {
    const { outbound, destroy } = await openConsent();
    expect(await outbound.isChecked()).toBe(true);
    expect(await destroy.isChecked()).toBe(true);
    await outbound.uncheck();
    await destroy.uncheck();
    await allow();
    expect(await storedAppChoices(clientId)).toEqual({ mayActOutbound: false, mayDestroyUnasked: false });
  });

  it("the dashboard changes an app's choices by keyboard alone, without reconnecting it", async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const row = `tr[data-client-id="${clientId}"]`;
    expect(await rowChoices(page, row)).toEqual({ mayActOutbound: false, mayDestroyUnasked: false });
    await tabTo(page, clientId, 'may_act_outbound');
    await page.keyboard.press('Space');
    await tabTo(page, clientId, 'Save choices for Choosing Helper');
    await page.keyboard.press('Enter');
    await page.waitForURL(/notice=app_choices_saved/);
    expect(await page.getByRole('status').first().textContent()).toContain("The app's choices were saved");
    expect(await storedAppChoices(clientId)).toEqual({ mayActOutbound: true, mayDestroyUnasked: false });
    expect(await rowChoices(page, row)).toEqual({ mayActOutbound: true, mayDestroyUnasked: false });
  });
});

describe.skipIf(Boolean(missing))("the dashboard's rows", { timeout: 240_000 }, () => {
  it("change a key's choices by keyboard alone (Tab, Space, Enter), that key only; the page stays accessible", async () => {
    const { page } = person;
    await page.goto(`${env.stack.baseUrl}/dashboard`);
    const keys = await storedKeys(env, person.context);
    const sharing = keys.find((key) => key.name === 'Sharing key' && !key.revokedAt)!;
    const plainBefore = await storedKeyChoices('Plain key');

    await tabTo(page, sharing.id, 'may_act_outbound');
    await page.keyboard.press('Space');
    await tabTo(page, sharing.id, 'may_destroy_unasked');
    await page.keyboard.press('Space');
    await tabTo(page, sharing.id, 'Save choices for Sharing key');
    await page.keyboard.press('Enter');
    await page.waitForURL(/notice=key_choices_saved/);

    expect(await page.getByRole('status').first().textContent()).toContain("The key's choices were saved");
    expect(await storedKeyChoices('Sharing key')).toEqual({ mayActOutbound: false, mayDestroyUnasked: true });
    expect(await storedKeyChoices('Plain key')).toEqual(plainBefore);
    expect(await rowChoices(page, `tr[data-key-id="${sharing.id}"]`)).toEqual({
      mayActOutbound: false,
      mayDestroyUnasked: true,
    });
    // The hints are said once per table, not in every row.
    expect(await page.getByText('Every change can be undone from Activity').count()).toBe(3);
    await expectAccessibleInEveryLook(page, 'the dashboard with choices in each row, after saving');
  });
});

describe.skipIf(Boolean(missing))("the operator's ceiling on the dashboard", { timeout: 240_000 }, () => {
  it('is not shown when the operator forbids nothing (the defaults)', async () => {
    await person.page.goto(`${env.stack.baseUrl}/dashboard`);
    expect(await person.page.getByRole('heading', { name: CEILING_HEADING }).count()).toBe(0);
  });

  it('names what a web configured like mcp with OUTBOUND_LINK_SHARING=deny (and the others) forbids', async () => {
    // A second web on the same auth, with the ceiling set: as deploy/ and `pnpm start` give web
    // the values they give mcp.
    let web: RunningService | undefined;
    const { context, page } = await newPerson(env);
    try {
      web = await withFreePorts(1, ([port]) =>
        startServiceProcess(
          'web',
          {
            WEB_PORT: String(port),
            BASE_URL: `http://127.0.0.1:${port}`,
            INTERNAL_SERVICE_TOKEN: env.stack.serviceToken,
            AUTH_GRPC_ADDRESS: `127.0.0.1:${env.stack.ports.AUTH_GRPC_PORT}`,
            OUTBOUND_LINK_SHARING: 'deny',
            OUTBOUND_SHARING_DOMAINS: 'Example.com, partner.org',
            OUTBOUND_FETCH_FORMULAS: 'deny',
          },
          port!,
        ),
      );
      const sessionCookie = await sessionCookieOf(person.context, env.stack.baseUrl);
      await context.addCookies([{ name: 'sg_session', value: sessionCookie, url: web.url }]);
      await page.goto(`${web.url}/dashboard`);
      const section = page.getByRole('region', { name: CEILING_HEADING });
      const items = (await section.getByRole('listitem').allTextContents()).map((text) => text.trim());
      expect(items).toEqual([
        'Link sharing (anyone with the link)',
        'Sharing with or mentioning people outside your own Workspace domain, or writing into spreadsheets they own, except at example.com, partner.org',
        'Formulas that fetch from the web or other spreadsheets (such as IMPORTXML, IMAGE, IMPORTRANGE)',
      ]);
      await expectAccessibleInEveryLook(page, 'the dashboard showing the operator ceiling');
    } finally {
      await context.close();
      await web?.stop();
    }
  });
});
