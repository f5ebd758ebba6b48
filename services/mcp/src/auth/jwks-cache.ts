import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

// While there is no key set at all, how often requests may start a fetch themselves.
const NO_KEYS_RETRY_MS = 1_000;

export interface JwksCacheOptions {
  /** Auth's JWKS inside the cluster. */
  url: string;
  /**
   * How often the key set is fetched again by a timer, whatever the traffic: when every token in
   * use is served from the verified-token cache no request ever asks for a key, yet a key removed
   * from the JWKS must still stop its tokens.
   */
  refreshIntervalMs?: number;
  /**
   * The shortest time between two fetches triggered by an unknown `kid` (a flood of made-up kids
   * costs one fetch per cooldown); also the wait before retrying a failed refresh, and the most
   * the retries back off to while there is no key set yet.
   */
  unknownKidCooldownMs?: number;
  fetchTimeoutMs?: number;
}

/**
 * There is no key set to verify with: auth has not answered since this process started. Answered
 * 503 with `Retry-After` (the time until the next fetch), never a guess.
 */
export class JwksUnavailableError extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super("auth's JWKS has not been fetched yet");
    this.name = 'JwksUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The authorization server's public keys, cached. jose's `createRemoteJWKSet` fails verification
 * while the JWKS endpoint is unreachable once its cache is stale; we must keep serving from the
 * last good set when auth is down (issue 5), and must notice when a key is removed (to flush
 * verified tokens), so the fetching is ours and the key matching is jose's `createLocalJWKSet`.
 *
 * The first fetch starts with the cache, without anyone waiting on it. Until one succeeds there is
 * no set to fall back on: the timer tries again after 1 s, doubling up to the cooldown, and a
 * request joins the fetch under way or, waiting at most a second, the next one it may start (so a
 * replica started beside auth verifies as soon as auth answers, and an outage costs at most a
 * fetch a second); when that fails it gets `JwksUnavailableError`, with the time until the next
 * attempt.
 *
 * Once there is a set, a request waits for a fetch only when its token names a `kid` the set lacks,
 * at most once per cooldown (a flood of made-up kids costs one fetch). Refreshing otherwise
 * happens on a timer, never on a request's path; a failed refresh keeps the last good set and is
 * retried after the cooldown.
 */
export function createJwksCache(options: JwksCacheOptions) {
  const refreshIntervalMs = options.refreshIntervalMs ?? 5 * 60_000;
  const cooldownMs = options.unknownKidCooldownMs ?? 30_000;
  let resolver: JWTVerifyGetKey | undefined;
  let kids = new Set<string>();
  let lastUnknownKidFetch = Number.NEGATIVE_INFINITY;
  let failuresWithoutKeys = 0;
  let nextAttemptAt = 0;
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const removalListeners: Array<(kids: string[]) => void> = [];

  async function fetchKeySet(): Promise<void> {
    const response = await fetch(options.url, {
      signal: AbortSignal.timeout(options.fetchTimeoutMs ?? 3_000),
    });
    if (!response.ok) throw new Error(`JWKS answered ${response.status}`);
    const body = (await response.json()) as JSONWebKeySet;
    if (!body || !Array.isArray(body.keys)) throw new Error('JWKS is not a key set');
    const nextKids = new Set(body.keys.map((key) => key.kid).filter(Boolean) as string[]);
    const removed = [...kids].filter((kid) => !nextKids.has(kid));
    resolver = createLocalJWKSet(body);
    kids = nextKids;
    if (removed.length > 0) for (const listener of removalListeners) listener(removed);
  }

  function refresh(): Promise<void> {
    if (!inflight) {
      lastAttemptAt = Date.now();
      inflight = fetchKeySet().finally(() => {
        inflight = undefined;
      });
    }
    return inflight;
  }

  function retryDelayMs(): number {
    if (resolver) return cooldownMs;
    failuresWithoutKeys++;
    return Math.min(cooldownMs, 1_000 * 2 ** (failuresWithoutKeys - 1));
  }

  function refreshOnTimer(): void {
    refresh().then(
      () => schedule(refreshIntervalMs),
      () => schedule(retryDelayMs()),
    );
  }

  function schedule(delayMs: number) {
    if (closed) return;
    clearTimeout(timer);
    nextAttemptAt = Date.now() + delayMs;
    timer = setTimeout(refreshOnTimer, delayMs);
    timer.unref();
  }

  /**
   * Without a key set yet: the request joins the fetch under way, or starts one once a second has
   * passed since the last began, waiting out the rest of that second (auth may have come up since:
   * a replica started beside it must not refuse tokens for the whole back-off, nor because the
   * timer's last try came just before auth answered). Refused only when that fetch fails too.
   */
  async function firstKeySet(): Promise<void> {
    const wait = lastAttemptAt + NO_KEYS_RETRY_MS - Date.now();
    // A few milliseconds more: a timer may fire a little early, and the check below must pass.
    if (!inflight && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 5));
    if (!resolver && !inflight && Date.now() - lastAttemptAt >= NO_KEYS_RETRY_MS) {
      refresh().catch(() => {});
    }
    if (inflight) await inflight.catch(() => {});
    if (!resolver) {
      throw new JwksUnavailableError(Math.max(1, Math.ceil((nextAttemptAt - Date.now()) / 1000)));
    }
  }

  // At start, so the first requests find the keys (or join this fetch) instead of each waiting
  // for a fetch of its own.
  refreshOnTimer();

  return {
    /** A jose key resolver: known kid → cached key; unknown kid → one refetch per cooldown. */
    getKey: (async (header, token) => {
      if (!resolver) await firstKeySet();
      else if (
        header.kid !== undefined &&
        !kids.has(header.kid) &&
        Date.now() - lastUnknownKidFetch >= cooldownMs
      ) {
        lastUnknownKidFetch = Date.now();
        await refresh().catch(() => {});
      }
      return resolver!(header, token);
    }) as JWTVerifyGetKey,
    /** Called with the ids of keys that left the set, so tokens they signed stop being trusted at once. */
    onKeysRemoved(listener: (kids: string[]) => void): void {
      removalListeners.push(listener);
    },
    close(): void {
      closed = true;
      clearTimeout(timer);
    },
  };
}

export type JwksCache = ReturnType<typeof createJwksCache>;
