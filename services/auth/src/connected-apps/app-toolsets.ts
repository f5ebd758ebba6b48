import { knownToolsets, type ToolsetName } from '@sheetgate/proto';
import { isUuid } from '@sheetgate/service-runtime';
import type { DatabasePool } from '../db/pool.ts';
import { createAppToolsetQueries } from './app-toolset-queries.ts';

// Account ids are users.id; anything else (no user could have it) has no choice to find.

/**
 * The toolsets a person chose for a connected app on the consent screen (docs/design.md §11,
 * "Toolsets"), table `app_toolsets`: read when the provider issues the app an access token (its
 * `toolsets` claim) and when the consent screen is shown again; dropped on disconnect.
 */
export function createAppToolsets(database: DatabasePool) {
  const queries = createAppToolsetQueries(database);
  return {
    /** The sets chosen for the app, in TOOLSETS order; null when never chosen (every set). */
    async chosen(userId: string, clientId: string): Promise<ToolsetName[] | null> {
      if (!isUuid(userId)) return null;
      const stored = await queries.find(userId, clientId);
      return stored ? knownToolsets(stored) : null;
    },

    /** Keeps the person's choice (at least one known set: the consent route checked it). */
    async choose(userId: string, clientId: string, toolsets: readonly ToolsetName[]): Promise<void> {
      await queries.upsert(userId, clientId, toolsets);
    },

    /** Drops the choice (the app was disconnected): a new connection starts from the defaults. */
    async forget(userId: string, clientId: string): Promise<void> {
      if (!isUuid(userId)) return;
      await queries.delete(userId, clientId);
    },
  };
}

export type AppToolsets = ReturnType<typeof createAppToolsets>;
