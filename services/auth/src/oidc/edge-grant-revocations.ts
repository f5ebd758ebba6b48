import type { Logger } from '@sheetgate/service-runtime';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { EdgeRevocations } from '../edge-revocations/edge-revocations.ts';

/**
 * The provider's own grant revocations (a rotated refresh token presented again, the revocation
 * endpoint, end-session) announced to every MCP replica, and the response that caused them held
 * until the replicas have them: an event listener cannot hold a response up, so the listener
 * leaves its announcement on the request and a middleware waits for it after the provider is done.
 */
export function announceGrantRevocations(
  provider: Provider,
  edgeRevocations: Pick<EdgeRevocations, 'grantRevoked'>,
  logger: Logger,
): void {
  const announcing = new WeakMap<object, Promise<void>[]>();
  provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
    const announced = edgeRevocations.grantRevoked(grantId).catch((error: unknown) => {
      // Recorded or not, the grant is gone; a replica connecting later learns it from the snapshot.
      logger.warn({ err: error, grantId }, 'could not announce a revoked grant to the MCP replicas');
    });
    const pending = announcing.get(ctx) ?? [];
    pending.push(announced);
    announcing.set(ctx, pending);
  });
  provider.use(async (ctx, next) => {
    await next();
    const pending = announcing.get(ctx);
    if (pending) await Promise.all(pending);
  });
}
