import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type handleBidiStreamingCall,
  type handleUnaryCall,
  InterceptingCall,
  type Interceptor,
  Metadata,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type ServiceDefinition,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';

/**
 * The internal service credential (docs/design.md §7.7): every call between Sheetgate's services
 * carries `authorization: Bearer <INTERNAL_SERVICE_TOKEN>` gRPC metadata, and auth's server
 * refuses any call without it. The token is a shared secret of at least 32 random bytes, set the
 * same in every service; it is never logged.
 */
export const SERVICE_CREDENTIAL_HEADER = 'authorization';
const SCHEME = 'Bearer ';

/** The metadata every internal call carries: `authorization: Bearer <serviceToken>`. */
export function serviceCredentialMetadata(serviceToken: string): Metadata {
  const metadata = new Metadata();
  metadata.set(SERVICE_CREDENTIAL_HEADER, `${SCHEME}${serviceToken}`);
  return metadata;
}

/**
 * A client interceptor that adds the service credential to every call of the client it is given
 * to (`new XClient(address, credentials, { interceptors: [serviceCredentialInterceptor(token)] })`).
 * Metadata rather than grpc-js call credentials: those are only sent over TLS channels, and the
 * internal network is plaintext behind NetworkPolicies.
 */
export function serviceCredentialInterceptor(serviceToken: string): Interceptor {
  const value = `${SCHEME}${serviceToken}`;
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(SERVICE_CREDENTIAL_HEADER, value);
        next(metadata, listener);
      },
    });
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The check of one expected token, with its digest computed once: on the hot path (every
 * ResolveApiKeys call) only the presented value is hashed.
 */
function serviceCredentialCheck(serviceToken: string): (metadata: Metadata) => boolean {
  const expected = digest(serviceToken);
  return (metadata) => {
    const values = metadata.get(SERVICE_CREDENTIAL_HEADER);
    const presented = values[0];
    if (values.length !== 1 || typeof presented !== 'string' || !presented.startsWith(SCHEME)) return false;
    const matches = timingSafeEqual(digest(presented.slice(SCHEME.length)), expected);
    return matches && serviceToken.length > 0;
  };
}

/**
 * True when the call's metadata carries exactly one `authorization: Bearer <serviceToken>`.
 * Compared in constant time (both sides hashed first, so neither length nor content leaks); an
 * empty expected token never matches.
 */
export function hasServiceCredential(metadata: Metadata, serviceToken: string): boolean {
  return serviceCredentialCheck(serviceToken)(metadata);
}

const UNAUTHENTICATED_DETAILS = 'missing or wrong service credential';

/**
 * Wraps every handler of a service so that a call without the right service credential gets
 * UNAUTHENTICATED and never reaches the handler. Handlers that are missing stay missing, so
 * grpc-js answers UNIMPLEMENTED for them. Given the service definition, it also refuses handler
 * names the service does not have (a typo would otherwise leave the method UNIMPLEMENTED) and
 * methods that stream one way only (the guard knows unary and bidirectional calls; a refused
 * bidirectional stream ends with UNAUTHENTICATED before its handler sees it).
 */
export function requireServiceCredential<Handlers extends UntypedServiceImplementation>(
  handlers: Handlers,
  serviceToken: string,
  definition?: ServiceDefinition,
): Handlers {
  if (definition) {
    for (const name of Object.keys(handlers)) {
      const method = definition[name];
      if (!method) {
        const known = Object.keys(definition).join(', ');
        throw new Error(`gRPC handler "${name}" is not a method of this service (methods: ${known})`);
      }
      if (method.requestStream !== method.responseStream) {
        throw new Error(
          `gRPC method ${method.path} streams one way; requireServiceCredential guards unary and bidirectional methods only`,
        );
      }
    }
  }
  const authorised = serviceCredentialCheck(serviceToken);
  const guarded: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers)) {
    if (typeof handler !== 'function') continue;
    if (definition?.[name]?.requestStream) {
      const bidi = handler as handleBidiStreamingCall<unknown, unknown>;
      guarded[name] = ((call: ServerDuplexStream<unknown, unknown>) => {
        if (!authorised(call.metadata)) {
          call.emit('error', { code: status.UNAUTHENTICATED, details: UNAUTHENTICATED_DETAILS });
          return;
        }
        bidi(call);
      }) as handleBidiStreamingCall<unknown, unknown>;
      continue;
    }
    const unary = handler as handleUnaryCall<unknown, unknown>;
    guarded[name] = ((call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      if (!authorised(call.metadata)) {
        callback({ code: status.UNAUTHENTICATED, details: UNAUTHENTICATED_DETAILS });
        return;
      }
      unary(call, callback);
    }) as handleUnaryCall<unknown, unknown>;
  }
  return guarded as Handlers;
}
