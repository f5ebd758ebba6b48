import { startGrpcServer } from '@sheetgate/proto';
import { createLogger, loadSettingsOrExit, runService } from '@sheetgate/service-runtime';
import { createMcpMetrics } from './metrics/mcp-metrics.ts';
import { createMcpService } from './service.ts';
import { mcpSettingsSchema } from './settings.ts';

const settings = loadSettingsOrExit('mcp', mcpSettingsSchema);
const logger = createLogger({ service: 'mcp', level: settings.LOG_LEVEL });
const metrics = createMcpMetrics();

await runService('mcp', logger, async () => {
  const service = await createMcpService(settings, logger, metrics);
  const grpc = await startGrpcServer({
    host: settings.MCP_HOST,
    port: settings.MCP_GRPC_PORT,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    callMetrics: { metrics: metrics.collector, service: 'mcp' },
    services: [service.changeUndo],
  });
  logger.info({ port: grpc.port }, 'mcp gRPC listening');
  return {
    handler: service.handler,
    host: settings.MCP_HOST,
    port: settings.MCP_PORT,
    portSetting: 'MCP_PORT',
    metrics: {
      collector: metrics.collector,
      port: settings.MCP_METRICS_PORT,
      portSetting: 'MCP_METRICS_PORT',
    },
    // An undo in flight finishes (its Google writes and journal entry) before the process ends.
    otherServers: [{ close: () => grpc.close() }],
    resources: [() => service.close()],
  };
});
