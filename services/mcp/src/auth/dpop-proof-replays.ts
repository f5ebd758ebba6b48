import { createHash } from 'node:crypto';
import { kindOfCallError, type RequestStateClient } from '@sheetgate/proto';
import { HttpError } from '@sheetgate/service-runtime';
import type { DpopProofReplays } from './dpop-proof.ts';

const RETRY_AFTER_SECONDS = 5;

/**
 * The id a proof is claimed under: `dpop-` and the SHA-256 of its key's thumbprint and its `jti`
 * (RFC 9449 §11.1: a `jti` is unique per key). 48 characters, so never a requestState's id (22);
 * and a `jti` of any length or alphabet fits the claim's id rule.
 */
export function dpopProofClaimId(jkt: string, jti: string): string {
  return `dpop-${createHash('sha256').update(jkt).update('\n').update(jti).digest('base64url')}`;
}

/**
 * Proofs are single use across every MCP replica by the record auth keeps of used requestStates
 * (`RequestStateService.ClaimRequestState`: one conditional write in Redis, or in auth's process
 * when it runs alone), under ids of their own. When auth cannot answer, no DPoP request is taken:
 * 503 with Retry-After, as for anything else this replica cannot check.
 */
export function grpcDpopProofReplays(client: RequestStateClient): DpopProofReplays {
  return {
    async firstUse(jkt, jti, validForMs) {
      try {
        return (await client.claimRequestState({ stateId: dpopProofClaimId(jkt, jti), validForMs })).claimed;
      } catch (error) {
        if (kindOfCallError(error) === 'unavailable')
          throw new HttpError(
            503,
            'temporarily_unavailable',
            'DPoP proofs cannot be checked right now; retry shortly',
            { 'retry-after': String(RETRY_AFTER_SECONDS) },
          );
        throw error;
      }
    },
  };
}
