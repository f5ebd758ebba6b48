import type { Logger } from '@sheetgate/service-runtime';
import type { EdgeRevocations } from '../edge-revocations/edge-revocations.ts';

/** Where a change of a person's Google connection is announced (the edge-revocations bus). */
export type ConnectionChangeAnnouncer = Pick<EdgeRevocations, 'googleConnectionChanged'>;

/**
 * Tells every MCP replica that the person's Google connection changed — disconnected, reconnected,
 * or refused by Google — so each forgets the Google access token it kept for them, and resolves
 * once they have (or could no longer trust what they kept). Never fails its caller: the change is
 * already stored, and an announcement that cannot be relayed (Redis down) leaves a replica with a
 * token Google either still accepts or answers 401 to, which makes it ask auth again
 * (`forceRefresh`); auth's answer is then the truth.
 */
export async function announceConnectionChanged(
  announcer: ConnectionChangeAnnouncer,
  userId: string,
  logger: Logger,
): Promise<void> {
  try {
    await announcer.googleConnectionChanged(userId);
  } catch (error) {
    logger.warn({ err: error, userId }, 'could not tell the MCP replicas a Google connection changed');
  }
}
