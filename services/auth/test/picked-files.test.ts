import { type AccountServiceClientApi, createAccountServiceClient, kindOfCallError } from '@sheetgate/proto';
import { createBrowser } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthWithGoogle, startAuthWithGoogle } from './support/auth-with-google.ts';
import { signInWithGoogle } from './support/google-testbed.ts';

// GOOGLE_SCOPE_MODE (issue 23, docs/design.md §7.8) at auth: the scopes the Google connection asks
// for, "partial" judged against the mode, the Picker's token given only in picked-files mode, and
// the picked files kept per person within bounds. Real auth processes, real database, the Google
// emulator's sign-in.

const G = 'https://www.googleapis.com/auth/';

interface Signed {
  subject: AuthWithGoogle;
  accounts: AccountServiceClientApi;
  cookie: string;
  googleRedirect: URL;
}

async function start(mode: 'standard' | 'picked-files', account: string): Promise<Signed> {
  const subject = await startAuthWithGoogle({ GOOGLE_SCOPE_MODE: mode });
  const browser = createBrowser();
  const { googleRedirect } = await signInWithGoogle(subject, browser, { account });
  const cookie = (await browser.jar.getCookies(subject.baseUrl)).find((entry) => entry.key === 'sg_session');
  if (!cookie) throw new Error('no session');
  const accounts = createAccountServiceClient({
    address: `127.0.0.1:${subject.env.AUTH_GRPC_PORT}`,
    serviceToken: subject.env.INTERNAL_SERVICE_TOKEN!,
  });
  return { subject, accounts, cookie: cookie.value, googleRedirect: new URL(googleRedirect) };
}

async function kindOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    return kindOfCallError(error);
  }
  return 'ok';
}

let picked: Signed;
let standard: Signed;

beforeAll(async () => {
  [picked, standard] = await Promise.all([
    start('picked-files', 'alice@example.com'),
    start('standard', 'bob@example.com'),
  ]);
}, 120_000);
afterAll(async () => {
  for (const each of [picked, standard]) {
    each?.accounts.close();
    await each?.subject.stop();
  }
});

describe('GOOGLE_SCOPE_MODE=picked-files at auth', () => {
  it('asks Google for openid email profile drive.file only, and calls that grant whole', async () => {
    expect(picked.googleRedirect.searchParams.get('scope')?.split(' ').sort()).toEqual(
      ['email', 'openid', 'profile', `${G}drive.file`].sort(),
    );
    const google = await picked.accounts.getGoogleConnection({ sessionCookie: picked.cookie });
    expect(google).toMatchObject({
      status: 'GOOGLE_CONNECTION_STATUS_CONNECTED',
      partial: false,
      scopeMode: 'picked-files',
    });
    expect(standard.googleRedirect.searchParams.get('scope')).toContain(`${G}drive.readonly`);
    expect(await standard.accounts.getGoogleConnection({ sessionCookie: standard.cookie })).toMatchObject({
      partial: false,
      scopeMode: 'standard',
    });
  });

  it('gives the Picker a Google token only in picked-files mode, only to a session', async () => {
    const token = await picked.accounts.getPickerToken({ sessionCookie: picked.cookie });
    expect(token.accessToken).not.toBe('');
    expect(token.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(await standard.accounts.getPickerToken({ sessionCookie: standard.cookie })).toEqual({
      accessToken: '',
      expiresAt: 0,
    });
    expect(await kindOf(picked.accounts.getPickerToken({ sessionCookie: 'nobody' }))).toBe(
      'permission_denied',
    );
  });

  it('keeps the picked files per person, newest first, a repeat moving to the top; forgets one', async () => {
    const { accounts, cookie } = picked;
    const file = (fileId: string, name: string) => ({
      fileId,
      name,
      mimeType: 'application/vnd.google-apps.spreadsheet',
      pickedAt: '',
    });
    expect(
      (
        await accounts.recordPickedFiles({
          sessionCookie: cookie,
          files: [file('1aaa', 'Budget'), file('1bbb', 'Plans')],
        })
      ).recorded,
    ).toBe(2);
    await accounts.recordPickedFiles({ sessionCookie: cookie, files: [file('1aaa', 'Budget 2027')] });
    const listed = (await accounts.listPickedFiles({ sessionCookie: cookie })).files;
    expect(listed.map((entry) => [entry.fileId, entry.name])).toEqual([
      ['1aaa', 'Budget 2027'],
      ['1bbb', 'Plans'],
    ]);
    // Another person sees none of them and cannot forget them.
    expect((await standard.accounts.listPickedFiles({ sessionCookie: standard.cookie })).files).toEqual([]);
    expect(
      (await standard.accounts.forgetPickedFile({ sessionCookie: standard.cookie, fileId: '1aaa' }))
        .forgotten,
    ).toBe(false);
    expect((await accounts.forgetPickedFile({ sessionCookie: cookie, fileId: '1aaa' })).forgotten).toBe(true);
    expect((await accounts.forgetPickedFile({ sessionCookie: cookie, fileId: '1aaa' })).forgotten).toBe(
      false,
    );
    expect(
      (await accounts.listPickedFiles({ sessionCookie: cookie })).files.map((entry) => entry.fileId),
    ).toEqual(['1bbb']);
  });

  it('refuses what is not a Drive id, an empty or oversized selection, and cleans names', async () => {
    const { accounts, cookie } = picked;
    const spreadsheet = 'application/vnd.google-apps.spreadsheet';
    const one = (fileId: string, name = 'x') => ({ fileId, name, mimeType: spreadsheet, pickedAt: '' });
    expect(
      await kindOf(accounts.recordPickedFiles({ sessionCookie: cookie, files: [one('../etc/passwd')] })),
    ).toBe('invalid_argument');
    expect(await kindOf(accounts.recordPickedFiles({ sessionCookie: cookie, files: [] }))).toBe(
      'invalid_argument',
    );
    const many = Array.from({ length: 101 }, (_, index) => one(`1many${index}`));
    expect(await kindOf(accounts.recordPickedFiles({ sessionCookie: cookie, files: many }))).toBe(
      'invalid_argument',
    );
    await accounts.recordPickedFiles({
      sessionCookie: cookie,
      files: [one('1ctl', `Bad\u0000name\u001b[31m${'y'.repeat(600)}`)],
    });
    const stored = (await accounts.listPickedFiles({ sessionCookie: cookie })).files.find(
      (entry) => entry.fileId === '1ctl',
    );
    expect(stored?.name).toBe(`Bad name [31m${'y'.repeat(600)}`.slice(0, 500));
  });

  it('re-judges existing connections when a deployment switches modes, and never hands a broad grant to the Picker', async () => {
    standard.subject.env.GOOGLE_SCOPE_MODE = 'picked-files';
    picked.subject.env.GOOGLE_SCOPE_MODE = 'standard';
    await Promise.all([standard.subject.restart(), picked.subject.restart()]);
    // Bob granted the standard scopes before: whole under picked-files too, but that token (which
    // reaches every file) stays at auth.
    expect(await standard.accounts.getGoogleConnection({ sessionCookie: standard.cookie })).toMatchObject({
      partial: false,
      scopeMode: 'picked-files',
    });
    expect(await standard.accounts.getPickerToken({ sessionCookie: standard.cookie })).toEqual({
      accessToken: '',
      expiresAt: 0,
    });
    // Alice granted drive.file alone: partial now that the deployment asks for the standard scopes.
    expect(await picked.accounts.getGoogleConnection({ sessionCookie: picked.cookie })).toMatchObject({
      partial: true,
      scopeMode: 'standard',
    });
    expect((await picked.accounts.getPickerToken({ sessionCookie: picked.cookie })).accessToken).toBe('');
  });
});
