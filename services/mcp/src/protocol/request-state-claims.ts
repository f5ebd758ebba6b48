import { GrpcStatus, isServiceError, kindOfCallError, type RequestStateClient } from '@sheetgate/proto';
import { ToolError } from '../errors/tool-error.ts';

const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The fleet-wide record of used `requestState`s (docs/design.md §15). It lives behind auth, not
 * here: the MCP service keeps nothing between a client's requests, and a retry may reach any
 * replica.
 */
export interface RequestStateClaims {
  /** True the first time `stateId` is claimed; false when it was used before. */
  claim(stateId: string, validForMs: number): Promise<boolean>;
}

/**
 * `RequestStateService.ClaimRequestState` over gRPC. When auth cannot answer, the confirmed call
 * does not run (an unrecorded state could run it twice): the state stays unused, and the tool says
 * to try again shortly. Other failures propagate (the call fails, nothing runs).
 */
export function grpcRequestStateClaims(client: RequestStateClient): RequestStateClaims {
  return {
    async claim(stateId, validForMs) {
      try {
        return (await client.claimRequestState({ stateId, validForMs })).claimed;
      } catch (error) {
        // UNIMPLEMENTED: an auth of an earlier release, while a rollout replaces it.
        if (kindOfCallError(error) === 'unavailable' || isServiceError(error, GrpcStatus.UNIMPLEMENTED))
          throw new ToolError(
            `Nothing was changed: Sheetgate could not record your confirmation right now (temporarily unavailable); try again in ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
          );
        throw error;
      }
    },
  };
}
