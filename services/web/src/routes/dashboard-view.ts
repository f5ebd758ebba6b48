import { randomBytes } from 'node:crypto';
import type { AccountServiceClientApi, OutboundCeilingSettings } from '@sheetgate/proto';
import type { Context } from 'koa';
import type { FormTokens } from '../forms/form-tokens.ts';
import type { HeaderAccount } from '../html/layout.ts';
import { type DashboardInput, dashboardPage } from '../pages/dashboard-page.ts';
import { type PickerSettings, pickedFilesSection } from './picked-files-section.ts';
import { sendPage, sessionCookieOf } from './request-values.ts';

/** What every dashboard route module is built from (app.ts passes the same to each). */
export interface DashboardDeps {
  accounts: AccountServiceClientApi;
  formTokens: FormTokens;
  baseUrl: string;
  /** The Google Picker's settings (used in GOOGLE_SCOPE_MODE=picked-files only). */
  picker?: PickerSettings | undefined;
  /** The operator's ceiling on outbound actions (the section "What this server does not allow"). */
  ceiling: OutboundCeilingSettings;
}

export interface DashboardSession {
  cookie: string;
  account: HeaderAccount & { name: string };
}

/** The signed-in person, or a redirect to sign in (undefined). */
export async function signedIn(
  ctx: Context,
  accounts: AccountServiceClientApi,
): Promise<DashboardSession | undefined> {
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

/**
 * Renders the dashboard for a signed-in person: the page itself, and the answer to a key's
 * creation (which shows the new secret, or the refused form, in place).
 */
export function dashboardRenderer(deps: DashboardDeps) {
  const { accounts, formTokens, baseUrl } = deps;
  return async function renderDashboard(
    ctx: Context,
    session: DashboardSession,
    extra: Partial<Pick<DashboardInput, 'created' | 'createForm' | 'notice'>> = {},
    status = 200,
  ): Promise<void> {
    const sessionCookie = session.cookie;
    const [google, keys, apps] = await Promise.all([
      accounts.getGoogleConnection({ sessionCookie }),
      accounts.listApiKeys({ sessionCookie }),
      accounts.listConnectedApps({ sessionCookie }),
    ]);
    const picked =
      google.scopeMode === 'picked-files'
        ? await pickedFilesSection(ctx, deps, sessionCookie, google)
        : undefined;
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
        keyChoicesToken: formTokens.issue('key-choices', sessionCookie),
        appChoicesToken: formTokens.issue('app-choices', sessionCookie),
        ceiling: deps.ceiling,
        createNonce: randomBytes(16).toString('base64url'),
        picked,
        ...extra,
      }),
      status,
    );
  };
}
