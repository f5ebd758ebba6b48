import { createHash, randomBytes } from 'node:crypto';
import { createAccountServiceClient } from '@sheetgate/proto';
import { createBrowser, readJson } from '@sheetgate/test-harness';
import type { McpUnderTest } from './stack.ts';

const REDIRECT = 'http://127.0.0.1:40111/callback';

/**
 * An MCP client connected as a person through the real OAuth flow, as the consent page drives it:
 * registration, authorization in the person's browser (signed in to the dashboard), consent with
 * the token `GetInteraction` gives the consent page (and, when `toolsets` is given, those boxes
 * checked; when `choices` is given, the two choices so), the code exchanged with PKCE (with a
 * DPoP proof when `dpopProof` makes one: RFC 9449 §5). Answers the client id, its access token
 * (which names its grant), its type and its refresh token.
 */
export async function connectApp(
  stack: Pick<McpUnderTest, 'baseUrl' | 'resource' | 'grpcAddress' | 'serviceToken'>,
  sessionCookie: string,
  options: {
    clientName?: string;
    toolsets?: readonly string[];
    choices?: { mayActOutbound: boolean; mayDestroyUnasked: boolean };
    /** A DPoP proof for the token request, of `htm` to `htu`. */
    dpopProof?: (htm: string, htu: string) => Promise<string>;
  } = {},
): Promise<{ clientId: string; accessToken: string; tokenType: string; refreshToken: string }> {
  const endpoint = (name: string) => `${stack.baseUrl}/api/auth/oauth2/${name}`;
  const registered = await fetch(endpoint('register'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: options.clientName ?? `revocation test ${randomBytes(3).toString('hex')}`,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    }),
  });
  const client = (await readJson(registered)) as { client_id: string };
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`);

  const verifier = randomBytes(32).toString('base64url');
  const browser = createBrowser();
  await browser.jar.setCookie(`sg_session=${sessionCookie}; Path=/; HttpOnly`, stack.baseUrl);
  const atRedirect = (url: URL) => url.href.startsWith(REDIRECT);
  const params = new URLSearchParams({
    client_id: client.client_id,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    scope: 'sheets:read sheets:write',
    resource: stack.resource,
  });
  let step = await browser.navigate(
    `${endpoint('authorize')}?${params}`,
    {},
    (url) => atRedirect(url) || (url.origin === stack.baseUrl && url.pathname === '/authorize'),
  );
  const consentPage = new URL(step.redirects.at(-1) ?? step.url);
  if (consentPage.pathname === '/authorize') {
    const uid = consentPage.searchParams.get('interaction')!;
    const accounts = createAccountServiceClient({
      address: stack.grpcAddress,
      serviceToken: stack.serviceToken,
    });
    let csrf: string;
    try {
      csrf = (await accounts.getInteraction({ interactionUid: uid, sessionCookie })).consentCsrfToken;
    } finally {
      accounts.close();
    }
    const toolsetBoxes: Array<[string, string]> = options.toolsets
      ? [['toolsets_offered', '1'], ...options.toolsets.map((name): [string, string] => ['toolsets', name])]
      : [];
    const choiceBoxes: Array<[string, string]> = options.choices
      ? [
          ['choices_offered', '1'],
          ...(options.choices.mayActOutbound ? [['may_act_outbound', 'on'] as [string, string]] : []),
          ...(options.choices.mayDestroyUnasked ? [['may_destroy_unasked', 'on'] as [string, string]] : []),
        ]
      : [];
    const posted = await browser.submitForm(`${stack.baseUrl}/api/auth/interaction/${uid}/consent`, [
      ['decision', 'allow'],
      ['csrf', csrf],
      ...toolsetBoxes,
      ...choiceBoxes,
    ]);
    if (posted.status !== 303) throw new Error(`consent answered ${posted.status}`);
    step = await browser.navigate(posted.location!, {}, atRedirect);
  }
  const code = new URL(step.redirects.at(-1) ?? step.url).searchParams.get('code');
  if (!code) throw new Error(`no code in ${step.redirects.at(-1) ?? step.url}`);
  const exchanged = await fetch(endpoint('token'), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.dpopProof ? { dpop: await options.dpopProof('POST', endpoint('token')) } : {}),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
      resource: stack.resource,
    }),
  });
  const tokens = (await readJson(exchanged)) as {
    access_token?: string;
    token_type?: string;
    refresh_token?: string;
  };
  if (exchanged.status !== 200 || !tokens.access_token || !tokens.refresh_token)
    throw new Error(`the token endpoint answered ${exchanged.status}`);
  return {
    clientId: client.client_id,
    accessToken: tokens.access_token,
    tokenType: tokens.token_type ?? '',
    refreshToken: tokens.refresh_token,
  };
}

/**
 * A refresh at the token endpoint, as a public client sends it; the status and the body. `extra`
 * parameters make the request differ from an earlier one (auth answers a byte-identical refresh
 * within 30 s with its earlier answer); `headers` are sent too (a DPoP proof).
 */
export async function refresh(
  stack: Pick<McpUnderTest, 'baseUrl' | 'resource'>,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  body: { access_token?: string; token_type?: string; refresh_token?: string; error?: string };
}> {
  const response = await fetch(`${stack.baseUrl}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
      resource: stack.resource,
      ...extra,
    }),
  });
  return { status: response.status, body: await readJson(response) };
}
