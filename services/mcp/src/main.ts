import { createTokenBrokerClient } from '@sheetgate/proto';
import { createLogger, loadSettingsOrExit, runService } from '@sheetgate/service-runtime';
import { google } from 'googleapis';
import { createMcpApp } from './app.ts';
import { createAccessTokenVerifier } from './auth/access-token-verifier.ts';
import { createRequestAuthenticator } from './auth/authenticate-request.ts';
import { brokerApiKeyResolver, brokerGoogleAccessTokens } from './auth/broker-clients.ts';
import { createJwksCache } from './auth/jwks-cache.ts';
import { createGoogleCaller } from './google/call-google.ts';
import { mcpResource, RESOURCE_SCOPES } from './protected-resource.ts';
import { createMcpServer } from './protocol/mcp-server.ts';
import { mcpSettingsSchema } from './settings.ts';
import { sheetgateTools } from './tools/registry.ts';

const settings = loadSettingsOrExit('mcp', mcpSettingsSchema);
const logger = createLogger({ service: 'mcp', level: settings.LOG_LEVEL });

await runService('mcp', logger, async () => {
  let forgetKeys: (kids: string[]) => void = () => {};
  const jwks = createJwksCache({
    url: `${settings.AUTH_INTERNAL_URL}/api/auth/jwks`,
    onKeysRemoved: (kids) => forgetKeys(kids),
  });
  const verifier = createAccessTokenVerifier({
    issuer: settings.BASE_URL,
    resource: mcpResource(settings.BASE_URL),
    jwks,
  });
  forgetKeys = verifier.forgetKeys;
  const broker = createTokenBrokerClient({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
  });

  // One googleapis client per API for the whole process; the user's token travels per call.
  const rootUrl = settings.GOOGLE_EMULATOR_URL ? `${settings.GOOGLE_EMULATOR_URL}/` : undefined;
  const callGoogle = createGoogleCaller({
    tokens: brokerGoogleAccessTokens(broker),
    ...(rootUrl ? { rootUrl } : {}),
    dashboardUrl: `${settings.BASE_URL}/dashboard`,
  });
  const tools = sheetgateTools({
    sheets: google.sheets({ version: 'v4', ...(rootUrl ? { rootUrl } : {}) }),
    drive: google.drive({ version: 'v3', ...(rootUrl ? { rootUrl } : {}) }),
    callGoogle,
  });
  const mcp = await createMcpServer({ tools, logger });
  const authenticate = createRequestAuthenticator({
    verifier,
    apiKeys: brokerApiKeyResolver(broker),
    resourceMetadataUrl: `${settings.BASE_URL}/.well-known/oauth-protected-resource/api/mcp`,
    scopes: RESOURCE_SCOPES,
  });
  return {
    handler: createMcpApp({ logger, baseUrl: settings.BASE_URL, mcp, authenticate }).callback(),
    host: settings.MCP_HOST,
    port: settings.MCP_PORT,
    portSetting: 'MCP_PORT',
    resources: [() => mcp.server.close(), async () => broker.close()],
  };
});
