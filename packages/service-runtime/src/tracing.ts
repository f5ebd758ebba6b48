import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/**
 * OpenTelemetry traces across the services (docs/architecture.md, "Traces"): on only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) names a collector, and
 * then exported over OTLP/HTTP as the OpenTelemetry SDK's own `OTEL_*` settings say (headers,
 * batch delay). Off, every helper here is a branch on one variable: nothing is allocated per
 * request. Spans are made by hand at the few places a request crosses a boundary — the MCP
 * endpoint, an internal gRPC call on either side, a Google API request — rather than by the
 * auto-instrumentations, which patch modules through loader hooks the services' plain
 * `node main.ts` start does not install, and would record URLs (spreadsheet ids) and headers.
 * Spans carry names, methods, statuses and tool names; never a credential, a URL's query or cell
 * contents.
 */
let tracer: Tracer | undefined;

export interface Tracing {
  /** Sends what is still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing when a collector is named; else does nothing. The SDK is loaded only then: its
 * modules cost every service about 0.2 s of start-up that a deployment without traces never needs.
 */
export async function startTracing(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  const [
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    { BatchSpanProcessor, TracerProvider },
  ] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
  ]);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || `sheetgate-${serviceName}` }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        // The SDK's setting, read here: this SDK's processor no longer reads the environment.
        ...(Number(env.OTEL_BSP_SCHEDULE_DELAY) > 0
          ? { scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY) }
          : {}),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer('sheetgate');
  return {
    async shutdown() {
      tracer = undefined;
      await provider.shutdown();
    },
  };
}

export function tracingOn(): boolean {
  return tracer !== undefined;
}

const headerGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    return undefined;
  },
};

/** The trace context a caller sent (`traceparent`, `tracestate`), or none. */
export function remoteContext(carrier: Record<string, unknown> | undefined): Context {
  if (!tracer || !carrier) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, headerGetter);
}

/** `traceparent` (and `tracestate`) for the current span, to send with an outgoing call. */
export function outgoingTraceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  if (tracer) propagation.inject(context.active(), headers);
  return headers;
}

export interface SpanOptions {
  kind: 'server' | 'client' | 'internal';
  attributes?: Attributes;
  /** The remote parent of a server span (`remoteContext`); else the current span is the parent. */
  parent?: Context;
  /** When the work began, if before the span could be named (epoch milliseconds). */
  startTime?: number;
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL };

/**
 * Runs `work` inside a span named `name` (its children and outgoing calls see it as current); a
 * throw marks the span as an error, by the error's name only. Without tracing, `work` runs as is.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(undefined);
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    {
      kind: KINDS[options.kind],
      ...(options.attributes ? { attributes: options.attributes } : {}),
      ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
    throw error;
  } finally {
    span.end();
  }
}

/** Marks a span as failed with a short, content-free reason (an HTTP status class, a gRPC code). */
export function markSpanFailed(span: Span | undefined, reason: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}
