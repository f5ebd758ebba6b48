import {
  ServerInterceptingCall,
  type ServerInterceptor,
  type ServiceDefinition,
  status,
} from '@grpc/grpc-js';
import type { ServiceMetrics } from '@sheetgate/service-runtime';

/**
 * A gRPC server interceptor counting every call of an internal gRPC server by method and the
 * status it ends with, and timing it: `sheetgate_<service>_grpc_calls_total{method,outcome}` and
 * `sheetgate_<service>_grpc_call_duration_seconds{method}`. It sees the calls the service
 * credential check refuses too, which never reach a handler. A path that is none of `services`'
 * methods counts as `unknown`, so a caller cannot add label values.
 */
export function grpcCallMetrics(
  metrics: ServiceMetrics,
  service: string,
  services: ServiceDefinition[],
): ServerInterceptor {
  const calls = metrics.counter({
    name: `sheetgate_${service}_grpc_calls_total`,
    help: 'Internal gRPC calls answered, by method and status (ok, or the gRPC status name).',
    labelNames: ['method', 'outcome'] as const,
  });
  const duration = metrics.histogram({
    name: `sheetgate_${service}_grpc_call_duration_seconds`,
    help: 'Time to answer an internal gRPC call, by method.',
    labelNames: ['method'] as const,
  });
  const methodOf = new Map(
    services.flatMap((definition) =>
      Object.values(definition).map(({ path }) => [path, path.slice(path.lastIndexOf('/') + 1)] as const),
    ),
  );
  // Every method's series from the start (at 0), so that a query or an alert finds them before
  // the first call.
  for (const method of new Set(methodOf.values())) {
    calls.inc({ method, outcome: 'ok' }, 0);
    duration.zero({ method });
  }
  return (descriptor, call) => {
    const method = methodOf.get(descriptor.path) ?? 'unknown';
    const started = performance.now();
    return new ServerInterceptingCall(call, {
      sendStatus(answered, next) {
        const code = answered.code ?? status.UNKNOWN;
        const outcome = code === status.OK ? 'ok' : (status[code]?.toLowerCase() ?? 'unknown');
        calls.inc({ method, outcome });
        duration.observe({ method }, (performance.now() - started) / 1000);
        next(answered);
      },
    });
  };
}
