import type { ApiKey } from '@sheetgate/proto';
import type { ApiKeyRecord } from '../api-keys/index.ts';

/** An API key as AccountService answers it: never the secret, never its hash. */
export function apiKeyMessage(key: ApiKeyRecord): ApiKey {
  return {
    id: key.id,
    name: key.name,
    displayPrefix: key.displayPrefix,
    scopes: key.scopes,
    toolsets: key.toolsets ?? [],
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? '',
    expiresAt: key.expiresAt?.toISOString() ?? '',
    revokedAt: key.revokedAt?.toISOString() ?? '',
    choices: { mayActOutbound: key.mayActOutbound, mayDestroyUnasked: key.mayDestroyUnasked },
  };
}
