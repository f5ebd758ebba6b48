import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, jsonErrors, routeMiddleware } from '@sheetgate/service-runtime';
import { generateLocalSecrets } from '@sheetgate/test-harness';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLog } from '../src/audit/index.ts';
import { createMemoryCache } from '../src/cache/memory-cache.ts';
import { parseKeyring } from '../src/crypto/keyring.ts';
import type { ConnectionChangeAnnouncer } from '../src/google/connection-changes.ts';
import type { GoogleConnectionLibrary } from '../src/google/google-connections.ts';
import { googleEndpoints } from '../src/google/google-endpoints.ts';
import { isPartialGrant, parseGrantedScopes } from '../src/google/google-scopes.ts';
import { loginPageWithError } from '../src/google/return-to.ts';
import { createGoogleSignIn } from '../src/google/sign-in-routes.ts';
import { createSignInStates } from '../src/google/sign-in-state.ts';
import type { RateLimiter } from '../src/rate-limits/index.ts';
import type { SessionStore } from '../src/sessions/index.ts';
import type { UserLibrary } from '../src/users/index.ts';

const SPREADSHEETS = 'https://www.googleapis.com/auth/spreadsheets';
const DRIVE_READONLY = 'https://www.googleapis.com/auth/drive.readonly';
const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';

describe('Google endpoints', () => {
  it('are Google’s own without an emulator', () => {
    expect(googleEndpoints({})).toEqual({
      authorization: 'https://accounts.google.com/o/oauth2/v2/auth',
      token: 'https://oauth2.googleapis.com/token',
      revocation: 'https://oauth2.googleapis.com/revoke',
      jwks: 'https://www.googleapis.com/oauth2/v3/certs',
      issuers: ['https://accounts.google.com', 'accounts.google.com'],
    });
  });

  it('fold onto the emulator’s origin, which is also the ID-token issuer', () => {
    expect(googleEndpoints({ GOOGLE_EMULATOR_URL: 'http://127.0.0.1:8090/' })).toEqual({
      authorization: 'http://127.0.0.1:8090/o/oauth2/v2/auth',
      token: 'http://127.0.0.1:8090/token',
      revocation: 'http://127.0.0.1:8090/revoke',
      jwks: 'http://127.0.0.1:8090/oauth2/v3/certs',
      issuers: ['http://127.0.0.1:8090', 'http://127.0.0.1:8090/'],
    });
  });
});

describe('the login page after a failed Google sign-in', () => {
  it('sends a cancelled sign-in back to the login page, keeping the pending interaction', () => {
    expect(loginPageWithError('/api/auth/interaction/uid-1', 'google_cancelled')).toBe(
      '/login?error=google_cancelled&interaction=uid-1',
    );
    expect(loginPageWithError('/dashboard', 'google_cancelled')).toBe('/login?error=google_cancelled');
    expect(loginPageWithError('/dashboard?tab=keys', 'google_failed')).toBe(
      '/login?error=google_failed&return_to=%2Fdashboard%3Ftab%3Dkeys',
    );
  });
});

describe('granted scopes', () => {
  it('marks a grant without one of the Sheets/Drive scopes as partial', () => {
    const full = parseGrantedScopes(`openid email ${SPREADSHEETS} ${DRIVE_FILE} ${DRIVE_READONLY} email`);
    expect(full).toHaveLength(5);
    expect(isPartialGrant(full)).toBe(false);
    expect(isPartialGrant(parseGrantedScopes(`openid email profile ${SPREADSHEETS} ${DRIVE_FILE}`))).toBe(
      true,
    );
    expect(isPartialGrant(parseGrantedScopes(undefined))).toBe(true);
  });
});

describe('pending sign-ins', () => {
  it('are honoured once, only in the browser that started them', async () => {
    const states = createSignInStates(createMemoryCache());
    const started = await states.begin({ codeVerifier: 'v', returnTo: '/dashboard' });
    expect(await states.finish(started.state, 'another-browser')).toEqual({
      ok: false,
      reason: 'wrong_browser',
    });
    expect(await states.finish(started.state, undefined)).toEqual({ ok: false, reason: 'wrong_browser' });
    // The foreign attempts did not burn the real browser's sign-in.
    const finished = await states.finish(started.state, started.browserSecret);
    expect(finished).toMatchObject({ ok: true, pending: { codeVerifier: 'v', returnTo: '/dashboard' } });
    expect(await states.finish(started.state, started.browserSecret)).toEqual({
      ok: false,
      reason: 'unknown_state',
    });
    expect(await states.finish('not-a-state', started.browserSecret)).toEqual({
      ok: false,
      reason: 'unknown_state',
    });
    expect(await states.finish(undefined, started.browserSecret)).toEqual({
      ok: false,
      reason: 'unknown_state',
    });
  });

  it('let only one of two racing callbacks through', async () => {
    const states = createSignInStates(createMemoryCache());
    const started = await states.begin({ codeVerifier: 'v', returnTo: '/dashboard' });
    const results = await Promise.all([
      states.finish(started.state, started.browserSecret),
      states.finish(started.state, started.browserSecret),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });
});

describe('GET /api/auth/google/start', () => {
  let base: string;
  let close: () => Promise<void>;
  // /start touches none of these: the callback tests run against the real ones (google-sign-in).
  const unused = {} as UserLibrary &
    SessionStore &
    GoogleConnectionLibrary &
    AuditLog &
    RateLimiter &
    ConnectionChangeAnnouncer;

  beforeAll(async () => {
    const logger = createLogger({ service: 'test', level: 'silent' });
    const routes = createGoogleSignIn({
      cache: createMemoryCache(),
      settings: {
        BASE_URL: 'https://sheetgate.example',
        GOOGLE_CLIENT_ID: 'client-1.apps.googleusercontent.com',
        GOOGLE_CLIENT_SECRET: 'secret',
        GOOGLE_EMULATOR_URL: 'http://127.0.0.1:1',
      },
      keyring: parseKeyring(generateLocalSecrets().AUTH_ENCRYPTION_KEYS!),
      logger,
      users: unused,
      sessions: unused,
      connections: unused,
      audit: unused,
      signInLimiter: unused,
      edgeRevocations: unused,
    });
    const app = new Koa({ proxy: true });
    app.use(jsonErrors(logger));
    app.use(routeMiddleware(routes));
    const server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close?.());

  it('asks Google for exactly the documented scopes, offline, with consent, PKCE S256, state and nonce', async () => {
    const response = await fetch(`${base}/api/auth/google/start?return_to=/api/auth/interaction/xyz`, {
      redirect: 'manual',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const location = new URL(response.headers.get('location')!);
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:1/o/oauth2/v2/auth');
    const query = location.searchParams;
    expect(query.get('scope')!.split(' ')).toEqual([
      'openid',
      'email',
      'profile',
      SPREADSHEETS,
      DRIVE_READONLY,
      DRIVE_FILE,
    ]);
    expect(query.get('scope')).not.toMatch(/auth\/drive(\s|$)/);
    expect(query.get('client_id')).toBe('client-1.apps.googleusercontent.com');
    expect(query.get('redirect_uri')).toBe('https://sheetgate.example/api/auth/google/callback');
    expect(query.get('response_type')).toBe('code');
    expect(query.get('access_type')).toBe('offline');
    expect(query.get('prompt')).toBe('consent');
    expect(query.get('include_granted_scopes')).toBe('true');
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const binding = response.headers.get('set-cookie')!;
    expect(binding).toMatch(/^sg_google_sign_in=[A-Za-z0-9_-]{43};/);
    expect(binding).toMatch(/path=\/api\/auth\/google\/callback/);
    expect(binding).toMatch(/samesite=lax/);
    expect(binding).toMatch(/secure/);
    expect(binding).toMatch(/httponly/);
    // The binding cookie's value is not the state, the verifier or the nonce.
    expect(binding).not.toContain(query.get('state'));
  });

  it.each(['//evil.example', 'https://evil.example', '/\\evil'])('refuses return_to=%j', async (returnTo) => {
    const response = await fetch(`${base}/api/auth/google/start?return_to=${encodeURIComponent(returnTo)}`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a callback without a pending sign-in', async () => {
    const response = await fetch(`${base}/api/auth/google/callback?state=abc&code=def`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
  });
});
