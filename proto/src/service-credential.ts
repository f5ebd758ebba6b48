import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type handleUnaryCall,
  Metadata,
  type ServerUnaryCall,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

const HEADER = 'authorization';

/** The metadata every internal call carries: `authorization: Bearer <INTERNAL_SERVICE_TOKEN>`. */
export function serviceCredentialMetadata(serviceToken: string): Metadata {
  const metadata = new Metadata();
  metadata.set(HEADER, `Bearer ${serviceToken}`);
  return metadata;
}

/** Constant-time comparison of the presented credential with the expected one (DESIGN §7.7). */
export function hasServiceCredential(metadata: Metadata, serviceToken: string): boolean {
  const presented = metadata.get(HEADER)[0];
  if (typeof presented !== 'string' || !presented.startsWith('Bearer ')) return false;
  // Hash both sides so the comparison is constant-time whatever the lengths.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented.slice('Bearer '.length)), digest(serviceToken));
}

/**
 * Wraps every unary handler of a service so that a call without the service credential gets
 * UNAUTHENTICATED and never reaches the handler. Handlers that are missing stay missing, so
 * grpc-js answers UNIMPLEMENTED for them.
 */
export function requireServiceCredential<Handlers extends UntypedServiceImplementation>(
  handlers: Handlers,
  serviceToken: string,
): Handlers {
  const guarded: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    guarded[name] = ((call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      if (!hasServiceCredential(call.metadata, serviceToken)) {
        callback({ code: status.UNAUTHENTICATED, details: 'missing or wrong service credential' });
        return;
      }
      (handler as handleUnaryCall<unknown, unknown>)(call, callback);
    }) as handleUnaryCall<unknown, unknown>;
  }
  return guarded as Handlers;
}
