import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { readFormBody } from '../http/request-body.ts';
import { renderAuthorizationErrorPage, renderChooserPage } from './chooser-page.ts';
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
    };
    const code = deps.grants.issueCode(authorization);
    redirectBack(ctx, request, { code, scope: scopes.join(' '), authuser: '0', prompt: 'consent' });
  };

  const start = (ctx: Context) => {
    try {
      const request = parseAuthorizationRequest(new URLSearchParams(ctx.querystring), deps.clients);
      if (request.promptNone) {
        // No page may be shown: only an account named by login_hint that already granted everything.
        const email = ctx.query.login_hint?.toString().toLowerCase() ?? '';
        const granted = deps.accounts().includes(email)
          ? deps.grants.previouslyGranted(email, request.clientId)
          : [];
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
        loginHint: ctx.query.login_hint?.toString(),
        optionalScopes: request.scopes.filter((scope) => !isIdentityScope(scope)),
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
      grantAndRedirect(ctx, request, email, form.getAll('scope'));
    } catch (error) {
      showError(ctx, error);
    }
  });
  return router;
}

function parseAuthorizationRequest(
  query: URLSearchParams,
  clients: OAuthClients,
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
    createdAt: Date.now(),
  };
}

function sweep(pending: Map<string, PendingAuthorization>) {
  const now = Date.now();
  for (const [id, request] of pending) if (request.createdAt + PENDING_TTL_MS < now) pending.delete(id);
}
