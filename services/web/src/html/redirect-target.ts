import type { GetInteractionResponse } from '@sheetgate/proto';

/**
 * Where the browser goes after the consent: a web host (https), a port on this computer (http
 * loopback), or a native app through its private-use scheme (RFC 8252 §7.1, e.g. Cursor's
 * `cursor://anysphere.cursor-retrieval/oauth/callback`), whose "host" is no web host at all.
 */
export type RedirectTarget =
  | { kind: 'web'; host: string }
  | { kind: 'loopback'; host: string }
  | { kind: 'app'; scheme: string }
  | { kind: 'unknown'; shown: string };

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
const SCHEME = /^[a-z][a-z0-9+.-]*$/;
/** Schemes that are never an app's redirect (auth refuses them at registration too). */
const NOT_APP_SCHEMES = new Set([
  'http',
  'https',
  'javascript',
  'data',
  'file',
  'vbscript',
  'blob',
  'filesystem',
  'about',
]);

type RedirectInfo = Pick<GetInteractionResponse, 'redirectHost' | 'loopbackRedirect' | 'redirectScheme'>;

export function redirectTarget(interaction: RedirectInfo): RedirectTarget {
  const { redirectHost, loopbackRedirect } = interaction;
  // A hostless private-use URI (`com.example.app:/callback`) has the scheme as its host.
  const hostless = /^([a-z][a-z0-9+.-]*):$/i.exec(redirectHost)?.[1];
  const scheme = (
    interaction.redirectScheme ||
    hostless ||
    (loopbackRedirect ? 'http' : 'https')
  ).toLowerCase();
  if (scheme === 'https' && HOST.test(redirectHost)) return { kind: 'web', host: redirectHost };
  if (scheme === 'http' && loopbackRedirect && HOST.test(redirectHost))
    return { kind: 'loopback', host: redirectHost };
  if (SCHEME.test(scheme) && !NOT_APP_SCHEMES.has(scheme)) return { kind: 'app', scheme };
  return { kind: 'unknown', shown: redirectHost };
}

/**
 * The CSP `form-action` source that lets the consent form's redirect reach the target (see
 * `allowFormActionTo`). For an app it is the scheme alone (`cursor:`): Chromium does not match a
 * host source such as `cursor://anysphere.cursor-retrieval` against a private-use URL (the redirect
 * stays blocked), so a scheme source is as exact as CSP gets here. An unknown target adds nothing:
 * Allow then fails closed in the browser rather than loosening the policy.
 */
export function formActionSource(target: RedirectTarget): string | undefined {
  switch (target.kind) {
    case 'web':
      return `https://${target.host}`;
    case 'loopback':
      // CSP's host grammar has no IPv6 literals: `http://[::1]:8080` is dropped as invalid, so
      // the source for one is any host on that port, over http.
      return target.host.startsWith('[')
        ? `http://*:${/:(\d+)$/.exec(target.host)?.[1] ?? '80'}`
        : `http://${target.host}`;
    case 'app':
      return `${target.scheme}:`;
    case 'unknown':
      return undefined;
  }
}
