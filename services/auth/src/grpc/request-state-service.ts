import type {
  ClaimRequestStateRequest,
  ClaimRequestStateResponse,
  RequestStateServiceServer,
} from '@sheetgate/proto';
import { type Logger, SheetgateError } from '@sheetgate/service-runtime';
import type { RequestStateClaims } from '../request-states/request-state-claims.ts';
import { unaryHandler } from './unary-handler.ts';

/**
 * The MCP service's ids: a requestState's 22 base64url characters, a DPoP proof's `dpop-` and 43
 * (docs/design.md §7.1); the bounds keep anything else out of the store.
 */
const STATE_ID = /^[A-Za-z0-9_-]{16,64}$/;
/** A state lives five minutes; twice that is the most anyone may hold a record for. */
const MAX_VALID_FOR_MS = 600_000;

/** gRPC RequestStateService: each MCP `requestState` is claimed once (docs/design.md §15). */
export function requestStateHandlers(deps: {
  logger: Logger;
  claims: RequestStateClaims;
}): Partial<RequestStateServiceServer> {
  return {
    claimRequestState: unaryHandler<ClaimRequestStateRequest, ClaimRequestStateResponse>(
      deps.logger,
      'ClaimRequestState',
      async (request) => {
        if (!STATE_ID.test(request.stateId))
          throw new SheetgateError('invalid_argument', 'state_id must be 16 to 64 base64url characters');
        if (!(request.validForMs >= 1 && request.validForMs <= MAX_VALID_FOR_MS))
          throw new SheetgateError('invalid_argument', `valid_for_ms must be 1..${MAX_VALID_FOR_MS}`);
        return { claimed: await deps.claims.claim(request.stateId, request.validForMs) };
      },
    ),
  };
}
