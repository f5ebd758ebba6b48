import type { ServerUnaryCall, sendUnaryData } from '@grpc/grpc-js';
import { GrpcStatus } from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';

/** A refusal with a gRPC status, thrown by handlers. */
export class GrpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'GrpcError';
    this.code = code;
  }
}

/** Adapts an async handler to grpc-js: GrpcError → its status, anything else → INTERNAL (logged). */
export function unaryHandler<Request, Response>(
  logger: Logger,
  method: string,
  run: (request: Request) => Promise<Response>,
) {
  return (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>) => {
    run(call.request).then(
      (response) => callback(null, response),
      (error: unknown) => {
        if (error instanceof GrpcError) {
          callback({ code: error.code, details: error.message });
          return;
        }
        logger.error({ err: error, method }, 'grpc handler failed');
        const transient = (error as { name?: string }).name === 'GoogleUnavailableError';
        callback({
          code: transient ? GrpcStatus.UNAVAILABLE : GrpcStatus.INTERNAL,
          details: 'internal error',
        });
      },
    );
  };
}
