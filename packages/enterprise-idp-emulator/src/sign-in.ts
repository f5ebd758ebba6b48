import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { IdpClient, Person } from './directory.ts';
import { readForm, single } from './form-body.ts';
import { OAuthError } from './oauth-error.ts';

const CODE_TTL_MS = 60_000;

/** An authorization request waiting for a person to be chosen, or a code waiting to be exchanged. */
export interface Authorization {
  clientId: string;
  redirectUri: string;
  state?: string;
  nonce?: string;
  scope: string;
  codeChallenge?: string;
  person?: Person;
  authTime?: number;
  expiresAt: number;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * OpenID Connect sign-in (the extension's §3, User Authentication): `GET /authorize` shows the
 * configured people, one button each named by their e-mail; choosing one redirects to the client
 * with a code (and `state`, `iss`, RFC 9207). PKCE S256 when the client sends a challenge.
 */
export function signInRoutes(deps: { issuer: string; people: Person[]; clients: Map<string, IdpClient> }) {
  const pending = new Map<string, Authorization>();
  const codes = new Map<string, Authorization>();
  const router = new Router();

  router.get('/authorize', (ctx) => {
    const query = new URLSearchParams(ctx.querystring);
    const client = deps.clients.get(query.get('client_id') ?? '');
    const redirectUri = query.get('redirect_uri') ?? '';
    if (!client) throw new OAuthError('invalid_client', 'unknown client_id');
    const allowed = client.redirectUris
      ? client.redirectUris.includes(redirectUri)
      : /^https?:\/\//.test(redirectUri);
    if (!allowed) throw new OAuthError('invalid_request', 'redirect_uri is not registered for this client');
    if (query.get('response_type') !== 'code') throw new OAuthError('unsupported_response_type', 'only code');
    const challenge = query.get('code_challenge') ?? undefined;
    if (challenge && query.get('code_challenge_method') !== 'S256')
      throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
    const id = randomBytes(16).toString('base64url');
    pending.set(id, {
      clientId: client.clientId,
      redirectUri,
      scope: query.get('scope') ?? 'openid',
      expiresAt: Date.now() + 10 * 60_000,
      ...(query.get('state') ? { state: query.get('state')! } : {}),
      ...(query.get('nonce') ? { nonce: query.get('nonce')! } : {}),
      ...(challenge ? { codeChallenge: challenge } : {}),
    });
    const buttons = deps.people
      .map(
        (person) =>
          `<li><button type="submit" name="person" value="${escapeHtml(person.sub)}">${escapeHtml(person.email)}</button></li>`,
      )
      .join('\n      ');
    ctx.type = 'html';
    ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - enterprise IdP (emulator)</title></head>
<body><main><h1>Sign in</h1><p>to continue to <strong>${escapeHtml(client.clientId)}</strong></p>
  <form method="post" action="${escapeHtml(`${deps.issuer}/authorize`)}">
    <input type="hidden" name="request" value="${id}">
    <ul>
      ${buttons}
    </ul>
  </form></main></body></html>`;
  });

  router.post('/authorize', async (ctx) => {
    const form = await readForm(ctx);
    const request = pending.get(single(form, 'request') ?? '');
    const person = deps.people.find((candidate) => candidate.sub === single(form, 'person'));
    if (!request || request.expiresAt < Date.now() || !person)
      throw new OAuthError('invalid_request', 'unknown or expired sign-in request');
    pending.delete(single(form, 'request')!);
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      ...request,
      person,
      authTime: Math.floor(Date.now() / 1000),
      expiresAt: Date.now() + CODE_TTL_MS,
    });
    const target = new URL(request.redirectUri);
    target.searchParams.set('code', code);
    if (request.state) target.searchParams.set('state', request.state);
    target.searchParams.set('iss', deps.issuer);
    ctx.status = 303;
    ctx.redirect(target.href);
  });

  return {
    router,
    /** The authorization behind a code, once: a code is single use and lives a minute. */
    redeem(code: string): Authorization | undefined {
      const found = codes.get(code);
      codes.delete(code);
      return found && found.expiresAt >= Date.now() ? found : undefined;
    },
  };
}
