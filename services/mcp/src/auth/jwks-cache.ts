import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

export interface JwksCacheOptions {
  /** Auth's JWKS inside the cluster. */
  url: string;
  /** How long a fetched key set is used before it is refreshed in the background. */
  maxAgeMs?: number;
  /** The shortest time between two fetches triggered by an unknown `kid`. */
  unknownKidCooldownMs?: number;
  /** Told the ids of keys that left the set, so tokens they signed stop being trusted at once. */
  onKeysRemoved?: (kids: string[]) => void;
  fetchTimeoutMs?: number;
}

/**
 * The authorization server's public keys, cached. jose's `createRemoteJWKSet` fails verification
 * while the JWKS endpoint is unreachable once its cache is stale; we must keep serving from the
 * last good set when auth is down (issue 5), and must notice when a key is removed (to flush
 * verified tokens), so the fetching is ours and the key matching is jose's `createLocalJWKSet`.
 */
export function createJwksCache(options: JwksCacheOptions) {
  const maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
  const cooldownMs = options.unknownKidCooldownMs ?? 30_000;
  let keySet: JSONWebKeySet | undefined;
  let resolver: JWTVerifyGetKey | undefined;
  let fetchedAt = 0;
  let lastFetchAttempt = 0;
  let inflight: Promise<void> | undefined;

  async function fetchKeySet(): Promise<void> {
    lastFetchAttempt = Date.now();
    const response = await fetch(options.url, {
      signal: AbortSignal.timeout(options.fetchTimeoutMs ?? 3_000),
    });
    if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
    const body = (await response.json()) as JSONWebKeySet;
    if (!body || !Array.isArray(body.keys)) throw new Error('JWKS is not a key set');
    const previousKids = new Set((keySet?.keys ?? []).map((key) => key.kid).filter(Boolean) as string[]);
    const nextKids = new Set(body.keys.map((key) => key.kid).filter(Boolean) as string[]);
    keySet = body;
    resolver = createLocalJWKSet(body);
    fetchedAt = Date.now();
    const removed = [...previousKids].filter((kid) => !nextKids.has(kid));
    if (removed.length > 0) options.onKeysRemoved?.(removed);
  }

  function refresh(): Promise<void> {
    inflight ??= fetchKeySet().finally(() => {
      inflight = undefined;
    });
    return inflight;
  }

  function knows(kid: string | undefined): boolean {
    return Boolean(keySet?.keys.some((key) => key.kid === kid));
  }

  return {
    /** A jose key resolver: known kid → cached key; unknown kid → one refetch (rate-limited). */
    getKey: (async (header, token) => {
      if (!resolver) await refresh();
      else if (Date.now() - fetchedAt > maxAgeMs) {
        // Stale: refresh, but a failure keeps the last good set in service.
        await refresh().catch(() => {});
      }
      if (!knows(header.kid) && Date.now() - lastFetchAttempt > cooldownMs) {
        await refresh().catch(() => {});
      }
      if (!resolver) throw new Error('no JWKS available');
      return resolver(header, token);
    }) as JWTVerifyGetKey,
    refresh,
    get kids(): string[] {
      return (keySet?.keys ?? []).map((key) => key.kid ?? '');
    },
  };
}

export type JwksCache = ReturnType<typeof createJwksCache>;
