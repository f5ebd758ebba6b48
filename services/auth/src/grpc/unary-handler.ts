import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { GrpcStatus } from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { isStoreOutage } from '../cache/store-unavailable.ts';

/** A refusal with a gRPC status, thrown by handlers. */
export class GrpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'GrpcError';
    this.code = code;
  }
}

/** What a handler knows of its call besides the request. */
export interface CallContext {
  /**
   * When the handler should have answered (epoch milliseconds): a little before the caller's
   * deadline, so the answer arrives in time; undefined when the caller set none.
   */
  answerBy: number | undefined;
}

// Time for the answer to travel back before the caller gives up.
const ANSWER_MARGIN_MS = 250;

function answerBy(call: ServerUnaryCall<unknown, unknown>): number | undefined {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? ms - ANSWER_MARGIN_MS : undefined;
}

/**
 * Adapts an async handler to grpc-js: GrpcError → its status; Google, PostgreSQL or Redis
 * unreachable → UNAVAILABLE (callers answer 503 and retry); anything else → INTERNAL. Failures are
 * logged.
 */
export function unaryHandler<Request, Response>(
  logger: Logger,
  method: string,
  run: (request: Request, context: CallContext) => Promise<Response>,
) {
  return (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>) => {
    run(call.request, { answerBy: answerBy(call as ServerUnaryCall<unknown, unknown>) }).then(
      (response) => callback(null, response),
      (error: unknown) => {
        if (error instanceof GrpcError) {
          callback({ code: error.code, details: error.message });
          return;
        }
        logger.error({ err: error, method }, 'grpc handler failed');
        const transient =
          (error as { name?: string }).name === 'GoogleUnavailableError' || isStoreOutage(error);
        callback({
          code: transient ? GrpcStatus.UNAVAILABLE : GrpcStatus.INTERNAL,
          details: 'internal error',
        });
      },
    );
  };
}
