import type { GoogleAccessTokenResult, Revocation } from '@sheetgate/proto';
import type { GoogleAccessTokens } from './google-access.ts';

type GoogleAccessToken = Extract<GoogleAccessTokenResult, { ok: true }>;

/**
 * How a tool call got its token: `kept` (this replica's, no broker call), `joined` (another call's
 * broker call under way), `asked` (a broker call: nothing usable kept — none, near expiry,
 * forgotten — or the revocation stream not current), `forced` (Google answered 401).
 */
export type GoogleTokenLookup = 'kept' | 'joined' | 'asked' | 'forced';

/**
 * What tells this replica a person's Google connection changed: auth's revocation stream
 * (`RevocationWatch` in src/auth/revocation-watch.ts).
 */
export interface ConnectionChangeSource {
  /** Whether the stream is current now: nothing it may have missed. */
  isCurrent(): boolean;
  onEvent(listener: (revocation: Revocation) => void): void;
  onResync(listener: () => void): void;
}

export interface EdgeGoogleTokenOptions {
  /** Where tokens come from: the broker's `GetGoogleAccessToken`. */
  broker: GoogleAccessTokens;
  stream: ConnectionChangeSource;
  /**
   * A token is no longer handed out this long before it expires, so a call never starts with a
   * token about to lapse (Google calls are retried and may wait, up to ~30 s).
   */
  marginSeconds?: number;
  /** The most people kept; past it, the oldest entry goes. */
  maxEntries?: number;
  /** Unix milliseconds (tests move it). */
  now?: () => number;
  /** Told how each lookup was answered (the metrics count them). */
  onLookup?: (outcome: GoogleTokenLookup) => void;
}

const DEFAULT_MARGIN_SECONDS = 60;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * People's Google access tokens kept in this MCP replica, so repeated tool calls do not each ask
 * auth (docs/design.md §4.3). Auth stays the only place a token is refreshed: a
 * token is kept as the broker answered it until `marginSeconds` before it expires, and asked for
 * again after that; `forceRefresh` (Google answered 401) skips what is kept, goes to the broker
 * and keeps its answer instead. Concurrent misses for one person share one broker call. A refusal
 * (GOOGLE_AUTH_REQUIRED, NOT_CONNECTED) or a failure is never kept.
 *
 * Kept only on the revocation stream's word: a person's token is forgotten when the stream says
 * their Google connection changed (the `google_connection` event, handled before it is
 * acknowledged), everything is forgotten when a snapshot arrives (the stream reopened: changes may
 * have been missed), and nothing kept is used, nor anything new kept, while the stream is not
 * current — then every call asks the broker. A broker answer asked for before the person's token
 * was forgotten is handed to its callers but not kept.
 *
 * Tokens are secrets: this module logs nothing and puts no token in any error.
 */
export function edgeGoogleAccessTokens(options: EdgeGoogleTokenOptions): EdgeGoogleAccessTokens {
  const { broker, stream } = options;
  const marginMs = (options.marginSeconds ?? DEFAULT_MARGIN_SECONDS) * 1000;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const now = options.now ?? Date.now;
  const counted = options.onLookup ?? (() => {});
  /** Person → their token, oldest kept first (Map order). */
  const kept = new Map<string, GoogleAccessToken>();
  /** Person → the broker call a miss may join. */
  const asking = new Map<string, Promise<GoogleAccessTokenResult>>();
  /** Person → the newest broker call for them: only its answer may be kept. */
  const newest = new Map<string, object>();

  const usable = (token: GoogleAccessToken) => now() < token.expiresAt * 1000 - marginMs;

  function forget(userId: string): void {
    kept.delete(userId);
    asking.delete(userId);
    newest.delete(userId);
  }
  function forgetAll(): void {
    kept.clear();
    asking.clear();
    newest.clear();
  }

  function keep(userId: string, token: GoogleAccessToken): void {
    kept.delete(userId);
    kept.set(userId, token);
    if (kept.size > maxEntries) kept.delete(kept.keys().next().value!);
  }

  function ask(userId: string, forceRefresh: boolean): Promise<GoogleAccessTokenResult> {
    const ticket = {};
    newest.set(userId, ticket);
    const answer = broker.get(userId, { forceRefresh }).then((result) => {
      if (newest.get(userId) === ticket && result.ok && usable(result) && stream.isCurrent())
        keep(userId, result);
      return result;
    });
    asking.set(userId, answer);
    const done = () => {
      if (newest.get(userId) === ticket) newest.delete(userId);
      if (asking.get(userId) === answer) asking.delete(userId);
    };
    answer.then(done, done);
    return answer;
  }

  stream.onEvent((revocation) => {
    if (revocation.kind === 'google_connection') forget(revocation.userId);
  });
  stream.onResync(forgetAll);

  return {
    async get(userId, getOptions) {
      if (getOptions?.forceRefresh) {
        // Google refused this token: it must not be handed out again, whatever the broker answers.
        kept.delete(userId);
        counted('forced');
        return ask(userId, true);
      }
      const token = kept.get(userId);
      if (token) {
        if (stream.isCurrent() && usable(token)) {
          counted('kept');
          return token;
        }
        if (!usable(token)) kept.delete(userId);
      }
      const joining = asking.get(userId);
      counted(joining ? 'joined' : 'asked');
      return joining ?? ask(userId, false);
    },
    forget,
    get size() {
      return kept.size;
    },
  };
}

export interface EdgeGoogleAccessTokens extends GoogleAccessTokens {
  /** Forgets what is kept for the person (and any broker answer on its way). */
  forget(userId: string): void;
  /** People with a token kept (tests, metrics). */
  readonly size: number;
}
