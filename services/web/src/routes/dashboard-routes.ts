import { randomBytes } from 'node:crypto';
import { type AccountServiceClientApi, kindOfCallError, TOOLSET_NAMES } from '@sheetgate/proto';
import {
  isUrlSafeId,
  type Route,
  route,
  setBrowserCookie,
  singleQueryValue,
} from '@sheetgate/service-runtime';
import type { Context } from 'koa';
import { z } from 'zod';
import { formGuard } from '../forms/form-guard.ts';
import type { FormTokens } from '../forms/form-tokens.ts';
import type { HeaderAccount } from '../html/layout.ts';
import { disconnectAppPage, revokeKeyPage } from '../pages/confirm-pages.ts';
import {
  type CreateKeyForm,
  type DashboardInput,
  dashboardPage,
  type PickedFilesInput,
} from '../pages/dashboard-page.ts';
import { allowPickerSources } from '../security-headers.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

/** Nonces of "Create API key" forms already answered in this browser (see POST /dashboard/api-keys). */
const SENT_FORMS_COOKIE = 'sg_sent_key_forms';
const SENT_FORMS_KEPT = 5;

const DAY_MS = 86_400_000;
const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';
/** A grant with any of these reaches every spreadsheet already: the Picker is not for it. */
const BROAD_GOOGLE_SCOPES = ['drive', 'drive.readonly', 'spreadsheets'].map(
  (name) => `https://www.googleapis.com/auth/${name}`,
);

/** The Google Picker as web's settings describe it (see settings.ts). */
export interface PickerSettings {
  apiKey: string | undefined;
  appId: string | undefined;
  scriptUrl: string;
  /** The origin of the frames the Picker opens. */
  frameOrigin: string;
}

const text = z.string().optional();
/** Every dashboard form carries web's CSRF token. */
const tokenForm = { csrf: text };

/**
 * An id that could name a key or an app: key ids are UUIDs, client ids random strings or (Client
 * ID Metadata Documents) https URLs. Anything empty, huge or with control characters names
 * nothing: answered here without asking auth (which refuses it too).
 */
const isPlausibleId = (value: string | undefined): value is string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  value !== undefined && value.length > 0 && value.length <= 2048 && !/[\u0000-\u001f\u007f]/.test(value);

/**
 * `/dashboard` and its forms. Every POST here is checked twice before its fields are read: Fetch
 * Metadata / Origin say it came from our own page, and web's CSRF token (bound to the session
 * cookie) says it came from a form web rendered for this session. The posts to auth (sign-out)
 * carry auth's own token.
 */
export function dashboardRoutes(deps: {
  accounts: AccountServiceClientApi;
  formTokens: FormTokens;
  baseUrl: string;
  /** The Google Picker's settings (used in GOOGLE_SCOPE_MODE=picked-files only). */
  picker?: PickerSettings | undefined;
}): Route[] {
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

  /** A POSTed dashboard form came from our page, for this session, before anything else is read. */
  const refuseForged = formGuard({ formTokens, baseUrl });

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
    const picked =
      google.scopeMode === 'picked-files' ? await pickedFilesInput(ctx, sessionCookie, google) : undefined;
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
        picked,
        ...extra,
      }),
      status,
    );
  }

  /**
   * The picked-files section: the person's chosen files, and the Picker when it can open (Google
   * connected with drive.file, the Picker's API key and app id set). Only then does this
   * response's CSP name the Picker's origins.
   */
  async function pickedFilesInput(
    ctx: Context,
    sessionCookie: string,
    google: { status: string; grantedScopes: string[] },
  ): Promise<PickedFilesInput> {
    const { files } = await accounts.listPickedFiles({ sessionCookie });
    const forgetCsrf = formTokens.issue('forget-file', sessionCookie);
    const picker = deps.picker;
    if (google.status !== 'GOOGLE_CONNECTION_STATUS_CONNECTED' || !google.grantedScopes.includes(DRIVE_FILE))
      return {
        files,
        forgetCsrf,
        unavailable: 'Connect Google (and allow every requested access) to choose spreadsheets.',
      };
    if (google.grantedScopes.some((scope) => BROAD_GOOGLE_SCOPES.includes(scope)))
      return {
        files,
        forgetCsrf,
        unavailable:
          'Your Google connection already reaches all your spreadsheets (you granted more before this deployment asked for less). To give Sheetgate only the files you choose, remove Sheetgate under Third-party apps & services in your Google Account, then reconnect Google.',
      };
    if (!picker?.apiKey || !picker.appId)
      return {
        files,
        forgetCsrf,
        unavailable:
          'The Google Picker is not set up in this deployment (GOOGLE_PICKER_API_KEY, GOOGLE_PICKER_APP_ID): ask its operator.',
      };
    allowPickerSources(ctx, {
      scriptOrigin: new URL(picker.scriptUrl).origin,
      frameOrigin: picker.frameOrigin,
    });
    return {
      files,
      forgetCsrf,
      picker: {
        apiKey: picker.apiKey,
        appId: picker.appId,
        scriptUrl: picker.scriptUrl,
        tokenCsrf: formTokens.issue('picker-token', sessionCookie),
        chooseCsrf: formTokens.issue('choose-files', sessionCookie),
      },
    };
  }

  /**
   * The person's Google access token for the Picker, fetched by the dashboard's script on "Choose
   * spreadsheets" (never rendered into a page or a URL). Auth gives one only in picked-files mode.
   */
  const pickerToken = route({
    method: 'POST',
    path: '/dashboard/picker-token',
    form: z.object({ ...tokenForm }),
    checkForgery: refuseForged('picker-token'),
    async handle(ctx) {
      const { accessToken, expiresAt } = await accounts.getPickerToken({
        sessionCookie: sessionCookieOf(ctx),
      });
      ctx.set('cache-control', 'no-store');
      if (!accessToken) {
        ctx.status = 409;
        ctx.body = { error: 'Sheetgate has no Google access to give the Picker: reconnect Google.' };
        return;
      }
      ctx.body = { accessToken, expiresAt };
    },
  });

  /** The Picker's selection, as its callback gave it: ids, names and types, in order. */
  const choosePickedFiles = route({
    method: 'POST',
    path: '/dashboard/picked-files',
    form: z.object({
      ...tokenForm,
      file_id: z.array(z.string()).optional(),
      file_name: z.array(z.string()).optional(),
      file_mime_type: z.array(z.string()).optional(),
    }),
    checkForgery: refuseForged('choose-files'),
    async handle(ctx, { form }) {
      const ids = form.file_id ?? [];
      const files = ids.map((fileId, index) => ({
        fileId,
        name: form.file_name?.[index] ?? '',
        mimeType: form.file_mime_type?.[index] ?? '',
        pickedAt: '',
      }));
      let notice = 'files_chosen';
      try {
        await accounts.recordPickedFiles({ sessionCookie: sessionCookieOf(ctx), files });
      } catch (error) {
        if (kindOfCallError(error) !== 'invalid_argument') throw error;
        notice = 'files_refused';
      }
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${notice}`);
    },
  });

  /** "Remove": Sheetgate forgets one chosen file (Google's grant is the person's to revoke there). */
  const forgetPickedFile = route({
    method: 'POST',
    path: '/dashboard/picked-files/remove',
    form: z.object({ ...tokenForm, file: text }),
    checkForgery: refuseForged('forget-file'),
    async handle(ctx, { form }) {
      const { forgotten } = isPlausibleId(form.file)
        ? await accounts.forgetPickedFile({ sessionCookie: sessionCookieOf(ctx), fileId: form.file })
        : { forgotten: false };
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${forgotten ? 'file_forgotten' : 'nothing_to_forget'}`);
    },
  });

  const dashboard = route({
    method: 'GET',
    path: '/dashboard',
    query: z.object({ notice: singleQueryValue }),
    async handle(ctx, { query }) {
      const session = await signedIn(ctx);
      if (!session) return;
      await renderDashboard(ctx, session, { notice: query.notice });
    },
  });

  const apiKeysPage = route({
    method: 'GET',
    path: '/dashboard/api-keys',
    handle(ctx) {
      ctx.status = 303;
      ctx.redirect('/dashboard');
    },
  });

  /**
   * Creates a key and shows its secret in this response only (no redirect could carry it without
   * putting it in a URL or storing it). Reloading this page re-sends the form: its nonce, remembered
   * in a cookie once answered, turns the re-send into a plain dashboard instead of a second key.
   * What the person typed goes to auth as typed: auth alone checks it, and its refusal is shown on
   * the form, which keeps the person's input.
   */
  const createKey = route({
    method: 'POST',
    path: '/dashboard/api-keys',
    form: z.object({
      ...tokenForm,
      // The page sends one; a form with several is answered as one without (no re-send guard).
      nonce: z.array(z.string()),
      name: text,
      expires: text,
      expiry_date: text,
      access: text,
      // One per checked box. The page's form also says it offered the boxes, so that none checked
      // (an empty choice, which auth refuses) differs from a post that never saw them (no choice:
      // auth gives the key every set, as for keys made before toolsets).
      toolsets: z.array(z.string()).optional(),
      toolsets_offered: text,
    }),
    checkForgery: refuseForged('create-api-key'),
    async handle(ctx, { form }) {
      const session = await signedIn(ctx);
      if (!session) return;
      // Nonces are ours (base64url); anything else is ignored rather than written into a cookie.
      const [sentNonce] = form.nonce.length === 1 ? form.nonce : [];
      const nonce = isUrlSafeId(sentNonce) ? sentNonce : '';
      const sent = (ctx.cookies.get(SENT_FORMS_COOKIE) ?? '').split('.').filter(isUrlSafeId);
      if (nonce && sent.includes(nonce))
        return renderDashboard(ctx, session, { notice: 'key_already_created' });

      const createForm: CreateKeyForm = {
        name: form.name ?? '',
        expires: form.expires ?? 'never',
        expiryDate: form.expiry_date ?? '',
        access: form.access === 'read' ? 'read' : 'write',
        // Echoed back on a refusal as what the key would have had: a post without the boxes gets every set.
        toolsets: form.toolsets_offered ? (form.toolsets ?? []) : TOOLSET_NAMES,
      };
      const toolsetChoice = form.toolsets_offered ? { names: [...createForm.toolsets] } : undefined;
      let created: Awaited<ReturnType<typeof accounts.createApiKey>>;
      try {
        created = await accounts.createApiKey({
          sessionCookie: session.cookie,
          name: createForm.name,
          scopes: createForm.access === 'read' ? ['sheets:read'] : ['sheets:read', 'sheets:write'],
          expires: createForm.expires,
          expiresAt: createForm.expiryDate,
          toolsets: toolsetChoice,
        });
      } catch (error) {
        // Auth's INVALID_ARGUMENT messages are written to be shown (proto/README.md).
        if (kindOfCallError(error) === 'invalid_argument') {
          const refused = (error as { details?: string }).details || 'These values were refused.';
          return renderDashboard(ctx, session, { createForm: { ...createForm, error: refused } }, 400);
        }
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
    },
  });

  const confirmRevoke = route({
    method: 'GET',
    path: '/dashboard/api-keys/revoke',
    query: z.object({ key: singleQueryValue }),
    async handle(ctx, { query }) {
      const session = await signedIn(ctx);
      if (!session) return;
      const { keys } = await accounts.listApiKeys({ sessionCookie: session.cookie });
      const key = keys.find((candidate) => candidate.id === query.key && !candidate.revokedAt);
      if (!key) {
        ctx.status = 303;
        ctx.redirect('/dashboard?notice=nothing_to_revoke');
        return;
      }
      sendPage(ctx, revokeKeyPage(key, formTokens.issue('revoke-api-key', session.cookie), session.account));
    },
  });

  const revokeKey = route({
    method: 'POST',
    path: '/dashboard/api-keys/revoke',
    form: z.object({ ...tokenForm, key: text }),
    checkForgery: refuseForged('revoke-api-key'),
    async handle(ctx, { form }) {
      const sessionCookie = sessionCookieOf(ctx);
      const { revoked } = isPlausibleId(form.key)
        ? await accounts.revokeApiKey({ sessionCookie, keyId: form.key })
        : { revoked: false };
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${revoked ? 'key_revoked' : 'nothing_to_revoke'}`);
    },
  });

  const confirmDisconnect = route({
    method: 'GET',
    path: '/dashboard/apps/disconnect',
    query: z.object({ client: singleQueryValue }),
    async handle(ctx, { query }) {
      const session = await signedIn(ctx);
      if (!session) return;
      const { apps } = await accounts.listConnectedApps({ sessionCookie: session.cookie });
      const app = apps.find((candidate) => candidate.clientId === query.client);
      if (!app) {
        ctx.status = 303;
        ctx.redirect('/dashboard?notice=nothing_to_disconnect');
        return;
      }
      sendPage(
        ctx,
        disconnectAppPage(app, formTokens.issue('disconnect-app', session.cookie), session.account),
      );
    },
  });

  const disconnectApp = route({
    method: 'POST',
    path: '/dashboard/apps/disconnect',
    form: z.object({ ...tokenForm, client: text }),
    checkForgery: refuseForged('disconnect-app'),
    async handle(ctx, { form }) {
      const sessionCookie = sessionCookieOf(ctx);
      const { disconnected } = isPlausibleId(form.client)
        ? await accounts.disconnectApp({ sessionCookie, clientId: form.client })
        : { disconnected: false };
      ctx.status = 303;
      ctx.redirect(`/dashboard?notice=${disconnected ? 'app_disconnected' : 'nothing_to_disconnect'}`);
    },
  });

  return [
    dashboard,
    apiKeysPage,
    createKey,
    confirmRevoke,
    revokeKey,
    confirmDisconnect,
    disconnectApp,
    pickerToken,
    choosePickedFiles,
    forgetPickedFile,
  ];
}
