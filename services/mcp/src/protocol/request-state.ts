import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { CompactSign, compactVerify } from 'jose';
import type { AuthInfo } from '../auth/auth-info.ts';
import type { RequestStateClaims } from './request-state-claims.ts';

/** How long a person has to answer a confirmation before the call must be asked again. */
const STATE_LIFETIME_SECONDS = 300;
/** The same, for what waits on the person elsewhere (a call approval: url-approvals.ts). */
export const STATE_LIFETIME_MS = STATE_LIFETIME_SECONDS * 1000;

/** What a `requestState` is bound to: who asked, and which call. */
export interface StateBinding {
  auth: AuthInfo;
  method: string;
  /** The tool's name and arguments (tools/call), as the client sent them. */
  target: string;
  args: unknown;
}

/**
 * `askAgain`: the state was sound but has lapsed. A sound one says whether `shown` is the
 * sentence the person was asked to confirm, which call approval it waits on (`approvalId`, URL-mode
 * elicitation; undefined for a form question), and is claimed (`claim`) when its call is about to
 * run: false when it was used before.
 */
export type StateCheck =
  | {
      ok: true;
      wasShown(sentence: string): boolean;
      approvalId: string | undefined;
      claim(): Promise<boolean>;
    }
  | { ok: false; reason: string; askAgain: boolean };

/**
 * MRTR `requestState` (MCP 2026-07-28, multi round-trip requests): an HS256 JWS (jose) over
 * digests of the principal, the call and its arguments, the sentence shown, the call approval the
 * person answers on Sheetgate's page (URL mode; its id, as the link carries it), and a short expiry.
 * The client echoes it unchanged, so any edit, another credential, other arguments or a late
 * retry is refused. Any replica can check it: the key is derived from the secret every replica
 * shares with auth (INTERNAL_SERVICE_TOKEN), labelled for this one use.
 *
 * A state is used once (MRTR): it carries a random id (`jti`) that `claims` records fleet-wide
 * when the confirmed call runs, so the same state cannot run it again; a state waiting on a call
 * approval claims the approval instead, so one approval runs its call once, whichever state of it
 * the client presents. Without `claims` (tests
 * that never confirm) a claim fails: nothing runs unclaimed.
 */
export function createRequestStateCodec(
  secret: string,
  options: { claims?: RequestStateClaims; now?: () => number } = {},
) {
  const now = options.now ?? Date.now;
  const key = new Uint8Array(hkdfSync('sha256', secret, 'sheetgate', 'sheetgate mcp request-state v1', 32));

  function claims(binding: StateBinding) {
    return {
      sub: digest(principalOf(binding.auth)),
      call: digest(`${binding.method}\n${binding.target}\n${stableJson(binding.args)}`),
    };
  }

  return {
    /**
     * A state for `binding`, remembering the sentence `shown` to the person and, for URL mode, the
     * call approval they answer.
     */
    async sign(binding: StateBinding, shown: string, approvalId?: string): Promise<string> {
      const payload = {
        ...claims(binding),
        jti: randomBytes(16).toString('base64url'),
        shown: digest(shown),
        ...(approvalId === undefined ? {} : { approval: approvalId }),
        exp: Math.floor(now() / 1000) + STATE_LIFETIME_SECONDS,
      };
      return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'HS256' })
        .sign(key);
    },

    /** Checks a state against the retry that presents it. */
    async verify(state: unknown, binding: StateBinding): Promise<StateCheck> {
      if (typeof state !== 'string' || state.length > 2_048)
        return { ok: false, reason: 'malformed', askAgain: false };
      let payload: Record<string, unknown>;
      try {
        const verified = await compactVerify(state, key, { algorithms: ['HS256'] });
        payload = JSON.parse(new TextDecoder().decode(verified.payload));
      } catch {
        return { ok: false, reason: 'not issued by this server, or altered', askAgain: false };
      }
      const expected = claims(binding);
      if (payload.sub !== expected.sub)
        return { ok: false, reason: 'issued to another credential', askAgain: false };
      if (payload.call !== expected.call)
        return { ok: false, reason: 'issued for another call', askAgain: false };
      const expiresAt = typeof payload.exp === 'number' ? payload.exp * 1000 : 0;
      if (expiresAt < now()) return { ok: false, reason: 'expired', askAgain: true };
      // Signed by a release before single use: it cannot be claimed, so the person is asked anew.
      const id = payload.jti;
      if (typeof id !== 'string') return { ok: false, reason: 'without an id', askAgain: true };
      const approvalId = typeof payload.approval === 'string' ? payload.approval : undefined;
      return {
        ok: true,
        wasShown: (sentence) => payload.shown === digest(sentence),
        approvalId,
        async claim() {
          if (!options.claims) throw new Error('requestState: no claim store to record single use');
          // One approval runs one call: every state signed for it while it was pending (a retry
          // before the person answered gets a fresh one) claims the approval, not itself. Such
          // states are signed only while the approval is pending, so none outlives its creation
          // by more than two lifetimes: the claim is kept that long.
          if (approvalId !== undefined) return options.claims.claim(`a${approvalId}`, 2 * STATE_LIFETIME_MS);
          return options.claims.claim(id, Math.max(1, expiresAt - now()));
        },
      };
    },
  };
}

export type RequestStateCodec = ReturnType<typeof createRequestStateCodec>;

function principalOf(auth: AuthInfo): string {
  return `${auth.userId}\n${auth.credential}\n${auth.clientId ?? ''}\n${auth.apiKeyId ?? ''}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** JSON with object keys sorted, so the same arguments in another key order bind the same. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
