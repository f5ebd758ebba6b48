import type { CredentialChoices } from '@sheetgate/proto';
import type Provider from 'oidc-provider';
import type { AuditLog } from '../audit/index.ts';
import { type AppChoices, mayBeClientId } from '../call-consent/app-choices.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EdgeRevocations } from '../edge-revocations/edge-revocations.ts';
import { createOidcModelQueries } from '../oidc/oidc-model-queries.ts';
import { mcpResource } from '../oidc/resource.ts';
import type { AppToolsets } from './app-toolsets.ts';

export interface ConnectedApp {
  clientId: string;
  clientName: string;
  redirectHost: string;
  scopes: string[];
  /** What the person chose on the consent screen; null when never chosen (every set). */
  toolsets: string[] | null;
  /** The person's choices for the app (docs/design.md §11.10); the defaults when never chosen. */
  choices: CredentialChoices;
  firstUsedAt: string;
  lastUsedAt: string;
}

/**
 * The OAuth clients a user has granted access to (their grants in the provider's store), and
 * disconnecting one: revoking its grants revokes every token issued under them.
 */
export function createConnectedApps(deps: {
  pool: DatabasePool;
  provider: Provider;
  audit: AuditLog;
  /** Tells every MCP replica, so the grants' unexpired access tokens stop working there too. */
  edgeRevocations: Pick<EdgeRevocations, 'grantRevoked'>;
  appToolsets: AppToolsets;
  appChoices: Pick<AppChoices, 'chosen' | 'forget'>;
}) {
  const { provider, audit } = deps;
  const models = createOidcModelQueries(deps.pool);

  /**
   * The provider's own revocation of a grant (as lib/helpers/revoke.js does it): every model's
   * adapter drops what was issued under the grant, wherever it lives (codes may be in Redis).
   */
  async function revokeGrant(grantId: string): Promise<void> {
    await Promise.all([
      provider.AccessToken.revokeByGrantId(grantId),
      provider.RefreshToken.revokeByGrantId(grantId),
      provider.AuthorizationCode.revokeByGrantId(grantId),
      provider.Grant.adapter.destroy(grantId),
    ]);
  }

  return {
    async list(userId: string): Promise<ConnectedApp[]> {
      const rows = await models.connectedApps(userId, mcpResource(provider.issuer));
      const toolsets = await Promise.all(rows.map((row) => deps.appToolsets.chosen(userId, row.client_id)));
      const choices = await Promise.all(rows.map((row) => deps.appChoices.chosen(userId, row.client_id)));
      return rows.map((row, index) => {
        const redirect = Array.isArray(row.client?.redirect_uris)
          ? String(row.client.redirect_uris[0] ?? '')
          : '';
        return {
          clientId: row.client_id,
          clientName: String(row.client?.client_name ?? row.client_id),
          redirectHost: redirectHostOf(redirect),
          scopes: [...new Set((row.scopes ?? '').split(' ').filter(Boolean))],
          toolsets: toolsets[index] ?? null,
          choices: choices[index]!,
          firstUsedAt: new Date(row.first_used).toISOString(),
          lastUsedAt: new Date(row.last_used).toISOString(),
        };
      });
    },

    /** Whether the person has a live grant for the client (an app they connected). */
    async isConnected(userId: string, clientId: string): Promise<boolean> {
      if (!mayBeClientId(clientId)) return false;
      return (await models.newestGrantId(userId, clientId)) !== undefined;
    },

    /**
     * Revokes every grant of `userId` to `clientId`; true when there was one. Resolves once every
     * MCP replica refuses the grants' access tokens (or has stopped trusting what it knows).
     */
    async disconnect(userId: string, clientId: string): Promise<boolean> {
      // Not an id any client could have (PostgreSQL text cannot even hold a NUL): nothing to end.
      if (!mayBeClientId(clientId)) return false;
      const grantIds = await models.grantIds(userId, clientId);
      for (const id of grantIds) {
        await revokeGrant(id);
        await audit.record('grant.revoked', {
          userId,
          details: { grantId: id, clientId, reason: 'disconnected' },
        });
      }
      await Promise.all(grantIds.map((id) => deps.edgeRevocations.grantRevoked(id)));
      await Promise.all([
        deps.appToolsets.forget(userId, clientId),
        deps.appChoices.forget(userId, clientId),
      ]);
      return grantIds.length > 0;
    },
  };
}

export type ConnectedAppsLibrary = ReturnType<typeof createConnectedApps>;

/**
 * The host an app's answers go to; for a native app's private-use scheme (`cursor://host/…`), the
 * scheme (`cursor:`): its "host" names no web host, the scheme opens the app.
 */
function redirectHostOf(redirect: string): string {
  const uri = URL.parse(redirect);
  if (!uri) return '';
  return uri.protocol === 'http:' || uri.protocol === 'https:' ? uri.host : uri.protocol;
}
