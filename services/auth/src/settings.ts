import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';

/** Every setting of the auth service, read from the environment once at start. */
export const authSettingsSchema = z.object({
  BASE_URL: setting.baseUrl().default('http://localhost:8080'),
  AUTH_HOST: z.string().default('127.0.0.1'),
  AUTH_PORT: setting.port(8081),
  /** Internal gRPC (TokenBroker, AccountService); never routed by the gateway or Ingress. */
  AUTH_GRPC_PORT: setting.port(8084),
  DATABASE_URL: setting.url(['postgres', 'postgresql']),
  /** Optional: without it, an in-process cache stands in (one auth replica only). */
  REDIS_URL: setting.url(['redis', 'rediss']).optional(),
  /** Shared secret the mcp and web services present on every gRPC call. */
  INTERNAL_SERVICE_TOKEN: setting.secret(32),
  LOG_LEVEL: setting.logLevel(),
});

export type AuthSettings = z.infer<typeof authSettingsSchema>;
