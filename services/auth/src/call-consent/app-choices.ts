import { type CredentialChoices, DEFAULT_CREDENTIAL_CHOICES } from '@sheetgate/proto';
import { isUuid } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import type { DatabasePool } from '../db/pool.ts';
import { createAppChoiceQueries } from './app-choice-queries.ts';

/** Client ids are provider-generated or Client ID Metadata Document URLs, far shorter than this. */
export const MAX_CLIENT_ID_LENGTH = 2048;

/** A string that could be an OAuth client's id (PostgreSQL text cannot even hold a NUL). */
export function mayBeClientId(clientId: string): boolean {
  return clientId.length > 0 && clientId.length <= MAX_CLIENT_ID_LENGTH && !clientId.includes('\u0000');
}

/**
 * The person's choices for a connected app (docs/design.md §11.10), table `app_choices`: made on
 * the consent screen or the dashboard, read by the MCP service on each call that needs them and by
 * the consent screen and the dashboard; dropped on disconnect. Never chosen: the defaults.
 */
export function createAppChoices(deps: { pool: DatabasePool; audit: AuditLog }) {
  const queries = createAppChoiceQueries(deps.pool);
  return {
    /** The app's choices for the person; the defaults when never chosen. */
    async chosen(userId: string, clientId: string): Promise<CredentialChoices> {
      if (!isUuid(userId) || !mayBeClientId(clientId)) return { ...DEFAULT_CREDENTIAL_CHOICES };
      return (await queries.find(userId, clientId)) ?? { ...DEFAULT_CREDENTIAL_CHOICES };
    },

    /** Keeps the person's choices for the app, replacing any earlier ones, audited. */
    async choose(
      userId: string,
      clientId: string,
      choices: CredentialChoices,
      via: 'consent' | 'dashboard',
    ): Promise<void> {
      const { mayActOutbound, mayDestroyUnasked } = choices;
      await queries.upsert(userId, clientId, { mayActOutbound, mayDestroyUnasked });
      await deps.audit.record('app.choices_changed', {
        userId,
        details: { clientId, mayActOutbound, mayDestroyUnasked, via },
      });
    },

    /** Drops the choices (the app was disconnected): a new connection starts from the defaults. */
    async forget(userId: string, clientId: string): Promise<void> {
      if (!isUuid(userId) || !mayBeClientId(clientId)) return;
      await queries.delete(userId, clientId);
    },
  };
}

export type AppChoices = ReturnType<typeof createAppChoices>;
