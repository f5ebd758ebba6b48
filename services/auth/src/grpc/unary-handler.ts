import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { GRPC_STATUS_OF_KIND } from '@sheetgate/proto';
import {
  CALLER_FAULT_KINDS,
  errorKind,
  inSpan,
  type Logger,
  markSpanFailed,
  remoteContext,
  tracingOn,
} from '@sheetgate/service-runtime';
import { isStoreOutage } from '../cache/store-unavailable.ts';

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
 * Adapts an async handler to grpc-js. A thrown `SheetgateError` answers the status of its kind: a
 * caller's fault (`invalid_argument`, `permission_denied`, …) with its message; `unavailable`
 * (Google, PostgreSQL or Redis unreachable: callers answer 503 and retry) and `internal` without
 * detail, logged. PostgreSQL being down is `unavailable` too; anything else is INTERNAL.
 */
export function unaryHandler<Request, Response>(
  logger: Logger,
  method: string,
  run: (request: Request, context: CallContext) => Promise<Response>,
) {
  return (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>) => {
    const answer = () => run(call.request, { answerBy: answerBy(call as ServerUnaryCall<unknown, unknown>) });
    // With tracing on, the call is a server span under the caller's (its metadata's traceparent).
    const answered = tracingOn()
      ? inSpan(
          call.getPath().slice(1),
          {
            kind: 'server',
            parent: remoteContext(call.metadata.getMap()),
            attributes: { 'rpc.system': 'grpc', 'rpc.method': call.getPath().slice(1) },
          },
          (span) =>
            answer().catch((error: unknown) => {
              markSpanFailed(span, errorKind(error) ?? 'internal');
              throw error;
            }),
        )
      : answer();
    answered.then(
      (response) => callback(null, response),
      (error: unknown) => {
        const kind = errorKind(error) ?? (isStoreOutage(error) ? 'unavailable' : 'internal');
        if (CALLER_FAULT_KINDS.has(kind)) {
          callback({ code: GRPC_STATUS_OF_KIND[kind], details: (error as Error).message });
          return;
        }
        logger.error({ err: error, method }, 'grpc handler failed');
        callback({ code: GRPC_STATUS_OF_KIND[kind], details: 'internal error' });
      },
    );
  };
}
