import { createBrowser } from '@sheetgate/test-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabasePool, type DatabasePool } from '../src/db/pool.ts';
import { type AuthWithGoogle, startAuthWithGoogle } from './support/auth-with-google.ts';
import { pressChooserButton, signInWithGoogle } from './support/google-testbed.ts';

// Google sign-in as the deployed auth process wires it (src/main.ts), at the Google emulator: the
// per-account sign-in limit and the sign-in audit exist in production, not only in a test bed.

let subject: AuthWithGoogle;
let pool: DatabasePool;
beforeAll(async () => {
  subject = await startAuthWithGoogle({
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      register: { points: 500, durationSeconds: 3600 },
      signIn: { points: 1, durationSeconds: 600 },
    }),
  });
  pool = createDatabasePool(subject.database.url, 2);
});
afterAll(async () => {
  await pool?.end();
  await subject?.stop();
});

const connectionOf = async (email: string) =>
  (
    await pool.query<{ user_id: string; refresh_token_encrypted: string; updated_at: Date }>(
      'SELECT user_id, refresh_token_encrypted, updated_at FROM google_connections WHERE email = $1',
      [email],
    )
  ).rows;

describe('Google sign-in in the auth process', () => {
  it('signs in, then refuses the account’s next sign-in over its limit before storing anything', async () => {
    const first = await signInWithGoogle(subject, createBrowser(), { account: 'alice@example.com' });
    expect(first.callback!.status).toBe(303);
    expect(first.callback!.location).toBe(`${subject.baseUrl}/dashboard`);
    const [stored] = await connectionOf('alice@example.com');
    expect(stored).toBeDefined();
    const { rows: signIns } = await pool.query(
      `SELECT details FROM audit_events WHERE kind = 'sign_in' AND user_id = $1`,
      [stored!.user_id],
    );
    expect(signIns).toEqual([{ details: expect.objectContaining({ method: 'google' }) }]);

    // The same account again: Google answers (a new code and refresh token), Sheetgate refuses.
    const browser = createBrowser();
    const chooser = await browser.navigate(`${subject.baseUrl}/api/auth/google/start`);
    const pressed = await pressChooserButton(browser, chooser, 'alice@example.com');
    const cookies = await browser.jar.getCookieString(pressed.location!);
    const refused = await fetch(pressed.location!, { redirect: 'manual', headers: { cookie: cookies } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('set-cookie') ?? '').not.toContain('sg_session');
    expect((await refused.json()) as { error: string }).toMatchObject({ error: 'rate_limited' });

    // Nothing was written: the stored Google token is the first sign-in's, no second session.
    expect(await connectionOf('alice@example.com')).toEqual([stored]);
    const { rows: sessions } = await pool.query('SELECT id FROM dashboard_sessions WHERE user_id = $1', [
      stored!.user_id,
    ]);
    expect(sessions).toHaveLength(1);
    const { rows: events } = await pool.query<{ kind: string; details: Record<string, unknown> }>(
      'SELECT kind, details FROM audit_events WHERE user_id = $1 ORDER BY id',
      [stored!.user_id],
    );
    expect(events.map((event) => event.kind)).toEqual(['sign_in', 'rate_limit.hit']);
    expect(events[1]!.details).toMatchObject({ limit: 'signIn' });
  });

  it('counts per account: another account still signs in', async () => {
    const other = await signInWithGoogle(subject, createBrowser(), { account: 'bob@example.com' });
    expect(other.callback!.status).toBe(303);
    expect(await connectionOf('bob@example.com')).toHaveLength(1);
  });
});
