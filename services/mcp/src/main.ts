import { createLogger, loadSettingsOrExit, runService } from '@sheetgate/service-runtime';
import { createMcpApp } from './app.ts';
import { mcpSettingsSchema } from './settings.ts';

const settings = loadSettingsOrExit('mcp', mcpSettingsSchema);
const logger = createLogger({ service: 'mcp', level: settings.LOG_LEVEL });

await runService('mcp', logger, async () => ({
  handler: createMcpApp({ logger, baseUrl: settings.BASE_URL }).callback(),
  host: settings.MCP_HOST,
  port: settings.MCP_PORT,
  portSetting: 'MCP_PORT',
}));
