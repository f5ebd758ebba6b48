import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { accountFor } from '../accounts.ts';
import { readFormBody } from '../http/request-body.ts';
import {
  hasScopeChoice,
  renderAuthorizationErrorPage,
  renderChooserPage,
  SELECT_ALL,
} from './chooser-page.ts';
import type { OAuthClients } from './clients.ts';
import type { Authorization, GrantStore } from './grant-store.ts';
import { isIdentityScope, KNOWN_SCOPES, parseScopeParameter } from './scopes.ts';

/** An authorization request waiting at the chooser page (kept server-side so it cannot be edited). */
interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  state: string | undefined;
  scopes: string[];
  nonce: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: 'S256' | 'plain' | undefined;
  offline: boolean;
  forceConsent: boolean;
  includeGrantedScopes: boolean;
  /** The account `login_hint` names (by email or by `sub`), when it is one of the accounts. */
  hintedAccount: string | undefined;
  /** `max_age`: the ID token then says when the person authenticated (`auth_time`). */
  maxAge: number | undefined;
  createdAt: number;
}

const PENDING_TTL_MS = 30 * 60 * 1000;
export const AUTHORIZATION_PATH = '/o/oauth2/v2/auth';
const CHOOSE_PATH = '/o/oauth2/v2/auth/choose';

class AuthorizationPageError extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: string, description: string, status = 400) {
    super(description);
    this.error = error;
    this.status = status;
  }
}

/**
 * Google's authorization endpoint: validates the request, shows the account chooser with the
 * requested API scopes as checkboxes, and redirects back with a code (or `error=access_denied`).
 */
export function authorizeRoutes(deps: {
  clients: OAuthClients;
  grants: GrantStore;
  accounts: () => string[];
  /** Whether the chooser's scope checkboxes start ticked; Google's start unticked. */
  scopesTicked: boolean;
}) {
  const pending = new Map<string, PendingAuthorization>();
  const router = new Router();

  const showError = (ctx: Context, error: unknown) => {
    if (!(error instanceof AuthorizationPageError)) throw error;
    ctx.status = error.status;
    ctx.type = 'html';
    ctx.body = renderAuthorizationErrorPage(error.error, error.message);
  };

  const redirectBack = (ctx: Context, request: PendingAuthorization, params: Record<string, string>) => {
    const target = new URL(request.redirectUri);
    for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
    if (request.state !== undefined) target.searchParams.set('state', request.state);
    ctx.redirect(target.toString());
  };

  const grantAndRedirect = (ctx: Context, request: PendingAuthorization, email: string, ticked: string[]) => {
    let scopes = request.scopes.filter((scope) => isIdentityScope(scope) || ticked.includes(scope));
    if (request.includeGrantedScopes) {
      scopes = [...new Set([...scopes, ...deps.grants.previouslyGranted(email, request.clientId)])];
    }
    const authorization: Authorization = {
      email,
      clientId: request.clientId,
      scopes,
      redirectUri: request.redirectUri,
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      codeChallengeMethod: request.codeChallengeMethod,
      offline: request.offline,
      forceConsent: request.forceConsent,
      // The emulator keeps no browser session: whoever picks an account authenticates now.
      authTime: request.maxAge === undefined ? undefined : Math.floor(Date.now() / 1000),
    };
    const code = deps.grants.issueCode(authorization);
    redirectBack(ctx, request, { code, scope: scopes.join(' '), authuser: '0', prompt: 'consent' });
  };

  const start = (ctx: Context) => {
    try {
      const request = parseAuthorizationRequest(
        new URLSearchParams(ctx.querystring),
        deps.clients,
        deps.accounts(),
      );
      if (request.promptNone) {
        // No page may be shown (OpenID Connect Core §3.1.2.6). The emulator has no browser session,
        // so the person counts as signed in only as the account login_hint names; without one,
        // nobody is: login_required. Signed in, but some scope never granted to this client:
        // interaction_required, as Google answers when consent would have to be shown.
        const email = request.hintedAccount;
        // Without a page nobody can authenticate again, and the emulator cannot tell how long ago
        // the hinted account did: a max_age cannot be met silently.
        if (!email || request.maxAge !== undefined)
          return redirectBack(ctx, request, { error: 'login_required' });
        const granted = deps.grants.previouslyGranted(email, request.clientId);
        const covered = request.scopes.every((scope) => isIdentityScope(scope) || granted.includes(scope));
        if (granted.length === 0 || !covered)
          return redirectBack(ctx, request, { error: 'interaction_required' });
        return grantAndRedirect(ctx, request, email, request.scopes);
      }
      sweep(pending);
      const requestId = randomBytes(24).toString('base64url');
      pending.set(requestId, request);
      ctx.type = 'html';
      ctx.set('cache-control', 'no-store');
      ctx.body = renderChooserPage({
        action: CHOOSE_PATH,
        requestId,
        clientId: request.clientId,
        accounts: deps.accounts(),
        loginHint: request.hintedAccount,
        optionalScopes: request.scopes.filter((scope) => !isIdentityScope(scope)),
        scopesTicked: deps.scopesTicked,
      });
    } catch (error) {
      showError(ctx, error);
    }
  };
  router.get(AUTHORIZATION_PATH, start);
  // The v1 path Google still serves, used by older clients.
  router.get('/o/oauth2/auth', start);

  router.post(CHOOSE_PATH, async (ctx) => {
    try {
      const form = await readFormBody(ctx);
      const requestId = form.get('request') ?? '';
      const request = pending.get(requestId);
      if (!request || request.createdAt + PENDING_TTL_MS < Date.now()) {
        throw new AuthorizationPageError('invalid_request', 'This sign-in request has expired. Start again.');
      }
      pending.delete(requestId);
      if (form.has('cancel')) return redirectBack(ctx, request, { error: 'access_denied' });
      const email = (form.get('account') ?? '').toLowerCase();
      if (!deps.accounts().includes(email)) {
        throw new AuthorizationPageError('invalid_request', `No such account: ${email || '(none chosen)'}`);
      }
      const apiScopes = request.scopes.filter((scope) => !isIdentityScope(scope));
      // Decided here, not by hidden fields: a lone API scope has no checkbox and comes with the
      // request; "Select all" grants every requested one.
      const ticked = !hasScopeChoice(apiScopes) || form.has(SELECT_ALL) ? apiScopes : form.getAll('scope');
      grantAndRedirect(ctx, request, email, ticked);
    } catch (error) {
      showError(ctx, error);
    }
  });
  return router;
}

/** Google's `prompt` values; `none` must stand alone (OpenID Connect Core §3.1.2.1). */
const PROMPT_VALUES = new Set(['none', 'consent', 'select_account']);

/** `login_hint` is "an email address or the sub identifier" of the account (Google's OAuth docs). */
function accountNamedBy(hint: string | null, accounts: string[]): string | undefined {
  if (!hint) return undefined;
  const lower = hint.trim().toLowerCase();
  return accounts.find((email) => email === lower || accountFor(email).sub === lower);
}

function parseAuthorizationRequest(
  query: URLSearchParams,
  clients: OAuthClients,
  accounts: string[],
): PendingAuthorization & { promptNone: boolean } {
  const clientId = query.get('client_id') ?? '';
  const client = clients.find(clientId);
  if (!client) throw new AuthorizationPageError('invalid_client', 'The OAuth client was not found.', 401);
  const redirectUri = query.get('redirect_uri') ?? '';
  if (!clients.allowsRedirect(client, redirectUri)) {
    throw new AuthorizationPageError(
      'redirect_uri_mismatch',
      `The redirect URI in the request, ${redirectUri || '(none)'}, does not match the ones authorized for the OAuth client.`,
    );
  }
  if (query.get('response_type') !== 'code') {
    throw new AuthorizationPageError('unsupported_response_type', 'Only response_type=code is supported.');
  }
  const scopes = parseScopeParameter(query.get('scope'));
  if (scopes.length === 0)
    throw new AuthorizationPageError('invalid_request', 'Missing required parameter: scope');
  const unknown = scopes.filter((scope) => !KNOWN_SCOPES.has(scope));
  if (unknown.length > 0) {
    throw new AuthorizationPageError(
      'invalid_scope',
      `Some requested scopes were invalid: ${unknown.join(' ')}`,
    );
  }
  const codeChallenge = query.get('code_challenge') ?? undefined;
  const method = query.get('code_challenge_method') ?? (codeChallenge ? 'plain' : undefined);
  if (method !== undefined && method !== 'S256' && method !== 'plain') {
    throw new AuthorizationPageError('invalid_request', 'Invalid code_challenge_method value.');
  }
  if (method && !codeChallenge) {
    throw new AuthorizationPageError('invalid_request', 'Missing code_challenge.');
  }
  if (codeChallenge && !/^[A-Za-z0-9\-._~]{43,128}$/.test(codeChallenge)) {
    throw new AuthorizationPageError('invalid_request', 'Invalid code_challenge.');
  }
  const accessType = query.get('access_type') ?? 'online';
  if (accessType !== 'online' && accessType !== 'offline') {
    throw new AuthorizationPageError('invalid_request', `Invalid access_type: ${accessType}`);
  }
  const prompt = (query.get('prompt') ?? '').split(' ').filter(Boolean);
  const unknownPrompt = prompt.find((value) => !PROMPT_VALUES.has(value));
  if (unknownPrompt !== undefined) {
    throw new AuthorizationPageError(
      'invalid_request',
      `Invalid parameter value for prompt: Invalid prompt: ${unknownPrompt}`,
    );
  }
  if (prompt.includes('none') && prompt.length > 1) {
    throw new AuthorizationPageError(
      'invalid_request',
      'Invalid parameter value for prompt: none must not be combined with other values',
    );
  }
  const maxAge = query.get('max_age');
  if (maxAge !== null && !/^\d{1,10}$/.test(maxAge)) {
    throw new AuthorizationPageError('invalid_request', `Invalid parameter value for max_age: ${maxAge}`);
  }
  return {
    clientId,
    redirectUri,
    state: query.get('state') ?? undefined,
    scopes,
    nonce: query.get('nonce') ?? undefined,
    codeChallenge,
    codeChallengeMethod: method as 'S256' | 'plain' | undefined,
    offline: accessType === 'offline',
    forceConsent: prompt.includes('consent'),
    includeGrantedScopes: query.get('include_granted_scopes') === 'true',
    promptNone: prompt.includes('none'),
    hintedAccount: accountNamedBy(query.get('login_hint'), accounts),
    maxAge: maxAge === null ? undefined : Number(maxAge),
    createdAt: Date.now(),
  };
}

function sweep(pending: Map<string, PendingAuthorization>) {
  const now = Date.now();
  for (const [id, request] of pending) if (request.createdAt + PENDING_TTL_MS < now) pending.delete(id);
}
