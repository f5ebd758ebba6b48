import { type CredentialChoices, DEFAULT_CREDENTIAL_CHOICES } from '@sheetgate/proto';
import { isUuid } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import { StoreUnavailableError } from '../cache/store-unavailable.ts';
import { generateApiKey } from './api-key-format.ts';
import type { ApiKeyHasher } from './api-key-hash.ts';
import { ApiKeyInputError, validExpiry, validName, validScopes, validToolsets } from './api-key-input.ts';
import type { ApiKeyQueries, ApiKeyRecord } from './api-key-queries.ts';
import type { KeyRevocations } from './key-revocations.ts';
import { type ApiKeyStatus, keyStatus } from './key-verdict.ts';
import type { VerifiedKeyCache } from './verified-key-cache.ts';

/**
 * A key's life as its owner sees it on the dashboard: created (the secret is returned once; only a
 * keyed hash is stored), listed with its status, its choices changed, and revoked.
 */
export function createApiKeyLifecycle(deps: {
  queries: ApiKeyQueries;
  hasher: ApiKeyHasher;
  audit: AuditLog;
  /** This replica's verified keys, from which a revoked key is dropped at once. */
  cache: Pick<VerifiedKeyCache, 'forgetKey'>;
  revocations: Pick<KeyRevocations, 'announce'>;
}) {
  const { queries, hasher, audit, cache, revocations } = deps;
  return {
    /** Creates a key; `secret` is returned this once and is not recoverable afterwards. */
    async create(input: {
      userId: string;
      name: string;
      scopes: readonly string[];
      /** Undefined: every set. */
      toolsets?: readonly string[] | undefined;
      expiresAt?: Date | null;
      /** Undefined: the defaults. */
      choices?: CredentialChoices | undefined;
    }): Promise<{ key: ApiKeyRecord; secret: string }> {
      if (typeof input.userId !== 'string' || !isUuid(input.userId)) {
        throw new ApiKeyInputError('userId', 'Unknown user.');
      }
      const name = validName(input.name);
      const scopes = validScopes(input.scopes);
      const toolsets = validToolsets(input.toolsets);
      const expiresAt = validExpiry(input.expiresAt, new Date());
      const choices = input.choices ?? DEFAULT_CREDENTIAL_CHOICES;
      const { secret, displayPrefix } = generateApiKey();
      const key = await queries.insert({
        userId: input.userId,
        name,
        displayPrefix,
        secretHash: hasher.hash(secret),
        scopes,
        toolsets,
        expiresAt,
        choices,
      });
      await audit.record('api_key.created', {
        userId: key.userId,
        details: {
          keyId: key.id,
          name,
          displayPrefix,
          scopes,
          toolsets,
          expiresAt: expiresAt?.toISOString() ?? null,
          mayActOutbound: choices.mayActOutbound,
          mayDestroyUnasked: choices.mayDestroyUnasked,
        },
      });
      return { key, secret };
    },

    /** The user's keys, newest first, with their status; never a hash or a secret. */
    async list(userId: string): Promise<Array<ApiKeyRecord & { status: ApiKeyStatus }>> {
      if (!isUuid(userId)) return [];
      const nowMs = Date.now();
      return (await queries.listByUser(userId)).map((key) => ({ ...key, status: keyStatus(key, nowMs) }));
    },

    /**
     * The choices of one of the user's live keys (docs/design.md §11.10); undefined for an unknown,
     * revoked, expired or someone else's key, alike.
     */
    async liveChoices(userId: string, keyId: string): Promise<CredentialChoices | undefined> {
      if (!isUuid(userId) || !isUuid(keyId)) return undefined;
      return queries.liveChoices(userId, keyId);
    },

    /**
     * Replaces the choices of one of the user's live keys, audited; they hold from the key's next
     * call (read by the MCP service when a call needs them). Undefined when there is no such key.
     */
    async setChoices(
      userId: string,
      keyId: string,
      choices: CredentialChoices,
    ): Promise<ApiKeyRecord | undefined> {
      if (!isUuid(userId) || !isUuid(keyId)) return undefined;
      const key = await queries.setChoices(userId, keyId, choices);
      if (!key) return undefined;
      await audit.record('api_key.choices_changed', {
        userId,
        details: { keyId, mayActOutbound: key.mayActOutbound, mayDestroyUnasked: key.mayDestroyUnasked },
      });
      return key;
    },

    /**
     * Revokes one of the user's keys. Idempotent; true when the user has (or had) that key, false
     * for someone else's key or no key at all, so an id of another user's key reveals nothing.
     * Answers only once every replica will refuse the key on its next resolve: the revocation is
     * committed, then announced (which changes the revocation version). When the announcement
     * fails this rejects with a StoreUnavailableError (the dashboard says "try again"), and
     * revoking again (already revoked) announces again.
     */
    async revoke(userId: string, keyId: string): Promise<boolean> {
      if (!isUuid(userId) || !isUuid(keyId)) return false;
      const outcome = await queries.revoke(userId, keyId);
      if (outcome === 'not_found') return false;
      cache.forgetKey(keyId);
      // The audit event and the announcement both follow the commit, and neither failure may cost
      // the other: a retry finds the key already revoked and audits nothing, and an unannounced
      // revocation leaves other replicas trusting their cached entry.
      const [audited, announced] = await Promise.allSettled([
        outcome === 'revoked'
          ? audit.record('api_key.revoked', { userId, details: { keyId } })
          : Promise.resolve(),
        revocations.announce(keyId),
      ]);
      if (announced.status === 'rejected') {
        throw new StoreUnavailableError(
          'the key is revoked, but other replicas could not be told yet; revoke it again',
          announced.reason,
        );
      }
      if (audited.status === 'rejected') throw audited.reason;
      return true;
    },
  };
}

export type ApiKeyLifecycle = ReturnType<typeof createApiKeyLifecycle>;
