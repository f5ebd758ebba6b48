import { createServiceMetrics } from '@sheetgate/service-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChangeUndoServiceService,
  changeUndoService,
  createChangeUndoClient,
  GrpcStatus,
  grpcCallMetrics,
  isServiceError,
  type RunningGrpcServer,
  startGrpcServer,
} from '../src/index.ts';

// The series every internal gRPC server has (auth's and the MCP service's), read from a real
// server's Prometheus registry after real calls.

const TOKEN = 'a-service-token-for-tests-only-0123456789';
const metrics = createServiceMetrics('mcp', { routes: [] });
let server: RunningGrpcServer;

beforeAll(async () => {
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceToken: TOKEN,
    callMetrics: { metrics, service: 'mcp' },
    services: [
      changeUndoService({
        undoChange(call, callback) {
          if (call.request.changeId === 'fails') callback({ code: GrpcStatus.FAILED_PRECONDITION });
          else callback(null, { notFound: {} });
        },
      }),
    ],
  });
});

afterAll(() => server.forceShutdown());

async function count(labels: { method: string; outcome: string }): Promise<number> {
  const series = await metrics.registry.getSingleMetric('sheetgate_mcp_grpc_calls_total')!.get();
  return (
    series.values.find(
      (value) => value.labels.method === labels.method && value.labels.outcome === labels.outcome,
    )?.value ?? 0
  );
}

describe('grpcCallMetrics', () => {
  it("has each method's series at 0 before any call", async () => {
    const fresh = createServiceMetrics('mcp', { routes: [] });
    grpcCallMetrics(fresh, 'mcp', [ChangeUndoServiceService]);
    const series = await fresh.registry.getSingleMetric('sheetgate_mcp_grpc_calls_total')!.get();
    expect(series.values).toEqual([{ labels: { method: 'UndoChange', outcome: 'ok' }, value: 0 }]);
  });

  it('counts each call by method and the status it ended with, and times it', async () => {
    const client = createChangeUndoClient({ address: `127.0.0.1:${server.port}`, serviceToken: TOKEN });
    const refused = createChangeUndoClient({
      address: `127.0.0.1:${server.port}`,
      serviceToken: `${TOKEN}-wrong`,
    });
    const request = { sessionCookie: 'cookie', changeId: 'any', force: false };
    await client.undoChange(request);
    await client.undoChange(request);
    await expect(client.undoChange({ ...request, changeId: 'fails' })).rejects.toSatisfy((error) =>
      isServiceError(error, GrpcStatus.FAILED_PRECONDITION),
    );
    // Refused by the service credential check: never reaches the handler, still counted.
    await expect(refused.undoChange(request)).rejects.toSatisfy((error) =>
      isServiceError(error, GrpcStatus.UNAUTHENTICATED),
    );
    expect(await count({ method: 'UndoChange', outcome: 'ok' })).toBe(2);
    expect(await count({ method: 'UndoChange', outcome: 'failed_precondition' })).toBe(1);
    expect(await count({ method: 'UndoChange', outcome: 'unauthenticated' })).toBe(1);
    const durations = await metrics.registry
      .getSingleMetric('sheetgate_mcp_grpc_call_duration_seconds')!
      .get();
    // A histogram's values carry the series' name (`_count`, `_sum`, `_bucket`).
    const observed = (
      durations.values as Array<(typeof durations.values)[number] & { metricName?: string }>
    ).find(
      (value) =>
        value.metricName === 'sheetgate_mcp_grpc_call_duration_seconds_count' &&
        value.labels.method === 'UndoChange',
    );
    expect(observed?.value).toBe(4);
  });
});
