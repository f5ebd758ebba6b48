import type { Logger } from '@sheetgate/service-runtime';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { AuditLog } from '../audit/index.ts';

type RevocationReason =
  | 'refresh_token_reused'
  | 'authorization_code_reused'
  | 'token_revoked'
  | 'signed_out'
  | 'other';

/** Why the provider revoked a grant, from the request that made it do so. */
function revocationReason(ctx: KoaContextWithOIDC): RevocationReason {
  const { route, params } = ctx.oidc;
  if (route === 'token' && params?.grant_type === 'refresh_token') return 'refresh_token_reused';
  if (route === 'token' && params?.grant_type === 'authorization_code') return 'authorization_code_reused';
  if (route === 'revocation') return 'token_revoked';
  if (route === 'end_session') return 'signed_out';
  return 'other';
}

/** The account a revoked grant belonged to, when the request loaded it (the grant is gone by now). */
function accountOf(ctx: KoaContextWithOIDC): string | undefined {
  const { entities, session } = ctx.oidc;
  return (
    entities.Grant?.accountId ??
    entities.RefreshToken?.accountId ??
    entities.AccessToken?.accountId ??
    session?.accountId
  );
}

/**
 * Writes the provider's grant revocations to the audit log: `grant.revoked` every time, and
 * `refresh_token.reused` when the revocation answers a rotated refresh token presented again.
 */
export function auditGrantRevocations(provider: Provider, audit: AuditLog, logger: Logger): void {
  provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
    const reason = revocationReason(ctx);
    const userId = accountOf(ctx) ?? null;
    const details = { grantId, clientId: ctx.oidc.client?.clientId, reason };
    logger.info(details, 'grant revoked');
    const writes = [audit.record('grant.revoked', { userId, details })];
    if (reason === 'refresh_token_reused')
      writes.push(
        audit.record('refresh_token.reused', { userId, details: { grantId, clientId: details.clientId } }),
      );
    // An event listener cannot hold up the response; a failed write is logged, not thrown.
    Promise.all(writes).catch((error: unknown) =>
      logger.warn({ err: error, grantId }, 'could not audit a grant revocation'),
    );
  });
}
