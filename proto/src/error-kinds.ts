import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ErrorKind } from '@sheetgate/service-runtime';
import { isServiceError } from './clients.ts';

/**
 * The one mapping between Sheetgate's error kinds and gRPC statuses, both ways: a handler answers
 * the status of its error's kind, a caller reads the kind back from the status it got.
 */
export const GRPC_STATUS_OF_KIND: Readonly<Record<ErrorKind, GrpcStatus>> = {
  invalid_argument: GrpcStatus.INVALID_ARGUMENT,
  unauthenticated: GrpcStatus.UNAUTHENTICATED,
  permission_denied: GrpcStatus.PERMISSION_DENIED,
  not_found: GrpcStatus.NOT_FOUND,
  conflict: GrpcStatus.ALREADY_EXISTS,
  rate_limited: GrpcStatus.RESOURCE_EXHAUSTED,
  unavailable: GrpcStatus.UNAVAILABLE,
  internal: GrpcStatus.INTERNAL,
};

const KIND_OF_STATUS = new Map<number, ErrorKind>([
  ...Object.entries(GRPC_STATUS_OF_KIND).map(([kind, code]) => [code, kind as ErrorKind] as const),
  // The caller's deadline passed: for the caller as much "try again shortly" as UNAVAILABLE.
  [GrpcStatus.DEADLINE_EXCEEDED, 'unavailable'],
  [GrpcStatus.FAILED_PRECONDITION, 'conflict'],
]);

/**
 * The kind of a failed gRPC call, as its caller should act on it; undefined when `error` is not a
 * gRPC status at all (a bug on the calling side).
 */
export function kindOfCallError(error: unknown): ErrorKind | undefined {
  if (!isServiceError(error)) return undefined;
  return KIND_OF_STATUS.get(error.code) ?? 'internal';
}
