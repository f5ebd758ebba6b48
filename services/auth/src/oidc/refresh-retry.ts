import { createHash } from 'node:crypto';
import type { Logger } from '@sheetgate/service-runtime';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Cache } from '../cache/cache.ts';
import type { Keyring } from '../crypto/keyring.ts';

const ANSWER_TTL_SECONDS = 30;
const LOCK_TTL_SECONDS = 10;
const WAIT_STEP_MS = 50;
const WAIT_LIMIT_MS = 5_000;

/**
 * Makes refresh-token requests idempotent for a short while, so that clients which retry or race
 * (two tabs, a timeout and a retry) do not trip reuse detection and lose their grant: refresh
 * tokens rotate on every use and a rotated one presented again revokes the grant.
 *
 * The first request for a given (body, Authorization header) runs; concurrent copies wait for it;
 * copies arriving within 30 s get the same answer. The answer — fresh tokens — is kept in the
 * cache encrypted, keyed by a hash of the whole request, so only a byte-identical request (same
 * refresh token, same client credentials) can receive it.
 *
 * A cache that fails before the request runs fails it (503, see store-outage.ts), before the
 * refresh token is rotated; once the tokens are issued, they are answered whatever the cache does.
 */
export function refreshRetryWindow(deps: {
  cache: Cache;
  keyring: Keyring;
  tokenPath: string;
  logger: Logger;
}) {
  const { cache, keyring, tokenPath, logger } = deps;
  const afterIssuing = (work: Promise<void>) =>
    work.catch((error: unknown) =>
      logger.warn({ err: error }, 'refresh retry window: could not record the answer or free the lock'),
    );
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    const form = (ctx.req as { body?: unknown }).body;
    if (ctx.path !== tokenPath || ctx.method !== 'POST' || typeof form !== 'string') return next();
    if (new URLSearchParams(form).get('grant_type') !== 'refresh_token') return next();

    const requestHash = createHash('sha256')
      .update(form)
      .update('\n')
      .update(ctx.get('authorization'))
      .digest('base64url');
    const answerKey = `refresh-answer:${requestHash}`;
    const lockKey = `refresh-lock:${requestHash}`;

    const replay = async () => {
      const stored = await cache.get(answerKey);
      if (!stored) return false;
      ctx.status = 200;
      ctx.set('cache-control', 'no-store');
      ctx.body = JSON.parse(keyring.decrypt(stored, requestHash));
      return true;
    };

    if (await replay()) return;
    if (!(await cache.setIfAbsent(lockKey, '1', LOCK_TTL_SECONDS))) {
      for (let waited = 0; waited < WAIT_LIMIT_MS; waited += WAIT_STEP_MS) {
        await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
        if (await replay()) return;
        if (!(await cache.get(lockKey))) break;
      }
      // The first request failed or vanished: this one runs on its own.
    }
    try {
      await next();
      if (ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
        await afterIssuing(
          cache.set(answerKey, keyring.encrypt(JSON.stringify(ctx.body), requestHash), ANSWER_TTL_SECONDS),
        );
      }
    } finally {
      // Left behind, the lock expires by itself; copies waiting on it then run on their own.
      await afterIssuing(cache.delete(lockKey));
    }
  };
}
