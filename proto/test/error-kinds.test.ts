import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ErrorKind } from '@sheetgate/service-runtime';
import { describe, expect, it } from 'vitest';
import { GRPC_STATUS_OF_KIND, kindOfCallError } from '../src/error-kinds.ts';

const callError = (code: number) => Object.assign(new Error('refused'), { code, details: 'refused' });

describe('error kinds over gRPC', () => {
  it.each(Object.keys(GRPC_STATUS_OF_KIND) as ErrorKind[])(
    'reads %s back from the status it answers',
    (kind) => {
      expect(kindOfCallError(callError(GRPC_STATUS_OF_KIND[kind]))).toBe(kind);
    },
  );

  it('gives every kind its own status', () => {
    const statuses = Object.values(GRPC_STATUS_OF_KIND);
    expect(new Set(statuses).size).toBe(statuses.length);
  });

  it('reads a passed deadline as unavailable and a status no handler answers as internal', () => {
    expect(kindOfCallError(callError(GrpcStatus.DEADLINE_EXCEEDED))).toBe('unavailable');
    expect(kindOfCallError(callError(GrpcStatus.FAILED_PRECONDITION))).toBe('conflict');
    expect(kindOfCallError(callError(GrpcStatus.DATA_LOSS))).toBe('internal');
  });

  it('knows nothing of an error that is not a gRPC status', () => {
    expect(kindOfCallError(new Error('bug'))).toBeUndefined();
    expect(kindOfCallError({ code: 14 })).toBeUndefined();
    expect(kindOfCallError(undefined)).toBeUndefined();
  });
});
