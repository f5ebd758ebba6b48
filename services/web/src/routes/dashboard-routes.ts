import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { type AccountServiceClientApi, GrpcStatus, isServiceError } from '@sheetgate/proto';
import { setBrowserCookie } from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import { readFormBody } from '../forms/form-body.ts';
import { type FormPurpose, type FormTokens, isSameOriginPost } from '../forms/form-tokens.ts';
import type { HeaderAccount } from '../html/layout.ts';
import { disconnectAppPage, revokeKeyPage } from '../pages/confirm-pages.ts';
import { type CreateKeyForm, type DashboardInput, dashboardPage } from '../pages/dashboard-page.ts';
import { PageError } from './page-errors.ts';
import { queryValue, sendPage, sessionCookieOf } from './request-values.ts';

/** Nonces of "Create API key" forms already answered in this browser (see POST /dashboard/api-keys). */
const SENT_FORMS_COOKIE = 'sg_sent_key_forms';
const SENT_FORMS_KEPT = 5;

const FORM_REFUSED = new PageError(
  403,
  'This form has expired',
  'The form was not sent from your Sheetgate dashboard, or it has expired. Nothing was changed. Open your dashboard and try again.',
  { href: '/dashboard', label: 'Go to your dashboard' },
);

const DAY_MS = 86_400_000;

const isNonce = (value: string | undefined): value is string =>
  value !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(value);

/**
 * An id that could name a key or an app: key ids are UUIDs, client ids random strings or (Client
 * ID Metadata Documents) https URLs. Anything empty, huge or with control characters names
 * nothing: answered here without asking auth (which refuses it too).
 */
const isPlausibleId = (value: string | undefined): value is string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  value !== undefined && value.length > 0 && value.length <= 2048 && !/[\u0000-\u001f\u007f]/.test(value);

/** The form's Expires choice as an RFC 3339 time ('' = never), or an error a person can fix. */
function expiryOf(form: CreateKeyForm, now = Date.now()): { expiresAt: string } | { error: string } {
  if (form.expires === 'never' || form.expires === '') return { expiresAt: '' };
  if (['30', '90', '365'].includes(form.expires))
    return { expiresAt: new Date(now + Number(form.expires) * DAY_MS).toISOString() };
  if (form.expires === 'date') {
    const date = /^\d{4}-\d{2}-\d{2}$/.test(form.expiryDate)
      ? new Date(`${form.expiryDate}T00:00:00Z`)
      : undefined;
    // `Date` rolls a day past the month's end over (02-31 → 03-03): only a date that exists counts.
    if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== form.expiryDate)
      return { error: 'Choose the expiry date (year, month and day).' };
    if (date.getTime() <= now) return { error: 'The expiry date must be in the future.' };
    return { expiresAt: date.toISOString() };
  }
  return { error: 'Choose when the key expires.' };
}

/**
 * `/dashboard` and its forms. Every POST here is checked twice: Fetch Metadata / Origin say it came
 * from our own page, and web's CSRF token (bound to the session cookie) says it came from a form
 * web rendered for this session. The posts to auth (sign-out) carry auth's own token.
 */
export function dashboardRoutes(
  router: Router,
  deps: { accounts: AccountServiceClientApi; formTokens: FormTokens; baseUrl: string },
): void {
  const { accounts, formTokens, baseUrl } = deps;
  const secureCookies = new URL(baseUrl).protocol === 'https:';

  /** The signed-in person, or a redirect to sign in (undefined). */
  async function signedIn(
    ctx: Context,
  ): Promise<{ cookie: string; account: HeaderAccount & { name: string } } | undefined> {
    const cookie = sessionCookieOf(ctx);
    const session = cookie ? await accounts.getSession({ sessionCookie: cookie }) : undefined;
    if (!session?.user) {
      ctx.status = 303;
      ctx.redirect('/login');
      return undefined;
    }
    return {
      cookie,
      account: {
        email: session.user.email,
        name: session.user.name,
        signOutCsrfToken: session.signOutCsrfToken,
      },
    };
  }

  /** A POSTed dashboard form, after the origin and CSRF checks. */
  async function checkedForm(ctx: Context, purpose: FormPurpose) {
    if (!isSameOriginPost(ctx, baseUrl)) throw FORM_REFUSED;
    const form = await readFormBody(ctx);
    const cookie = sessionCookieOf(ctx);
    if (!cookie) {
      ctx.status = 303;
      ctx.redirect('/login');
      return undefined;
    }
    if (!formTokens.verify(purpose, cookie, form.csrf)) throw FORM_REFUSED;
    return { form, cookie };
  }

  async function renderDashboard(
    ctx: Context,
    session: { cookie: string; account: HeaderAccount & { name: string } },
    extra: Partial<Pick<DashboardInput, 'created' | 'createForm' | 'notice'>> = {},
    status = 200,
  ) {
    const sessionCookie = session.cookie;
    const [google, keys, apps] = await Promise.all([
      accounts.getGoogleConnection({ sessionCookie }),
      accounts.listApiKeys({ sessionCookie }),
      accounts.listConnectedApps({ sessionCookie }),
    ]);
    sendPage(
      ctx,
      dashboardPage({
        baseUrl,
        account: session.account,
        google,
        keys: keys.keys,
        apps: apps.apps,
        appsResetAt: apps.appsResetAt,
        createToken: formTokens.issue('create-api-key', sessionCookie),
        createNonce: randomBytes(16).toString('base64url'),
        ...extra,
      }),
      status,
    );
  }

  router.get('/dashboard', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    await renderDashboard(ctx, session, { notice: queryValue(ctx, 'notice') });
  });

  router.get('/dashboard/api-keys', (ctx) => {
    ctx.status = 303;
    ctx.redirect('/dashboard');
  });

  /**
   * Creates a key and shows its secret in this response only (no redirect could carry it without
   * putting it in a URL or storing it). Reloading this page re-sends the form: its nonce, remembered
   * in a cookie once answered, turns the re-send into a plain dashboard instead of a second key.
   */
  router.post('/dashboard/api-keys', async (ctx) => {
    const checked = await checkedForm(ctx, 'create-api-key');
    if (!checked) return;
    const session = await signedIn(ctx);
    if (!session) return;
    const { form } = checked;
    // Nonces are ours (base64url); anything else is ignored rather than written into a cookie.
    const nonce = isNonce(form.nonce) ? form.nonce : '';
    const sent = (ctx.cookies.get(SENT_FORMS_COOKIE) ?? '').split('.').filter(isNonce);
    if (nonce && sent.includes(nonce))
      return renderDashboard(ctx, session, { notice: 'key_already_created' });

    const createForm: CreateKeyForm = {
      name: (form.name ?? '').trim(),
      expires: form.expires ?? 'never',
      expiryDate: form.expiry_date ?? '',
      access: form.access === 'read' ? 'read' : 'write',
    };
    const refuse = (error: string) =>
      renderDashboard(ctx, session, { createForm: { ...createForm, error } }, 400);
    if (!createForm.name) return refuse('Give the key a name.');
    if ([...createForm.name].length > 100) return refuse('The name can be at most 100 characters.');
    const expiry = expiryOf(createForm);
    if ('error' in expiry) return refuse(expiry.error);

    let created: Awaited<ReturnType<typeof accounts.createApiKey>>;
    try {
      created = await accounts.createApiKey({
        sessionCookie: session.cookie,
        name: createForm.name,
        scopes: createForm.access === 'read' ? ['sheets:read'] : ['sheets:read', 'sheets:write'],
        expiresAt: expiry.expiresAt,
      });
    } catch (error) {
      // Auth's INVALID_ARGUMENT messages are written to be shown (proto/README.md).
      if (isServiceError(error, GrpcStatus.INVALID_ARGUMENT))
        return refuse(error.details || 'These values were refused.');
      throw error;
    }
    if (nonce) {
      setBrowserCookie(ctx, SENT_FORMS_COOKIE, [...sent, nonce].slice(-SENT_FORMS_KEPT).join('.'), {
        path: '/dashboard',
        secure: secureCookies,
        maxAge: DAY_MS,
      });
    }
    await renderDashboard(ctx, session, { created: { key: created.key!, secret: created.secret } }, 201);
  });

  router.get('/dashboard/api-keys/revoke', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const id = queryValue(ctx, 'key');
    const { keys } = await accounts.listApiKeys({ sessionCookie: session.cookie });
    const key = keys.find((candidate) => candidate.id === id && !candidate.revokedAt);
    if (!key) {
      ctx.status = 303;
      ctx.redirect('/dashboard?notice=nothing_to_revoke');
      return;
    }
    sendPage(ctx, revokeKeyPage(key, formTokens.issue('revoke-api-key', session.cookie), session.account));
  });

  router.post('/dashboard/api-keys/revoke', async (ctx) => {
    const checked = await checkedForm(ctx, 'revoke-api-key');
    if (!checked) return;
    const keyId = checked.form.key;
    const { revoked } = isPlausibleId(keyId)
      ? await accounts.revokeApiKey({ sessionCookie: checked.cookie, keyId })
      : { revoked: false };
    ctx.status = 303;
    ctx.redirect(`/dashboard?notice=${revoked ? 'key_revoked' : 'nothing_to_revoke'}`);
  });

  router.get('/dashboard/apps/disconnect', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const clientId = queryValue(ctx, 'client');
    const { apps } = await accounts.listConnectedApps({ sessionCookie: session.cookie });
    const app = apps.find((candidate) => candidate.clientId === clientId);
    if (!app) {
      ctx.status = 303;
      ctx.redirect('/dashboard?notice=nothing_to_disconnect');
      return;
    }
    sendPage(
      ctx,
      disconnectAppPage(app, formTokens.issue('disconnect-app', session.cookie), session.account),
    );
  });

  router.post('/dashboard/apps/disconnect', async (ctx) => {
    const checked = await checkedForm(ctx, 'disconnect-app');
    if (!checked) return;
    const clientId = checked.form.client;
    const { disconnected } = isPlausibleId(clientId)
      ? await accounts.disconnectApp({ sessionCookie: checked.cookie, clientId })
      : { disconnected: false };
    ctx.status = 303;
    ctx.redirect(`/dashboard?notice=${disconnected ? 'app_disconnected' : 'nothing_to_disconnect'}`);
  });
}
