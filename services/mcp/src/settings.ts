import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';

/** Every setting of the MCP service, read from the environment once at start. */
export const mcpSettingsSchema = z.object({
  BASE_URL: setting.baseUrl().default('http://localhost:8080'),
  MCP_HOST: z.string().default('127.0.0.1'),
  MCP_PORT: setting.port(8082),
  /** Where the auth service answers inside the cluster (JWKS is fetched from here). */
  AUTH_INTERNAL_URL: setting.url(['http', 'https']).default('http://127.0.0.1:8081'),
  /** host:port of auth's internal gRPC (TokenBroker). */
  AUTH_GRPC_ADDRESS: z.string().default('127.0.0.1:8084'),
  INTERNAL_SERVICE_TOKEN: setting.secret(32),
  /** Where Google's APIs are reached: unset for Google itself, the emulator's URL otherwise. */
  GOOGLE_EMULATOR_URL: setting.url(['http', 'https']).optional(),
  LOG_LEVEL: setting.logLevel(),
});

export type McpSettings = z.infer<typeof mcpSettingsSchema>;
