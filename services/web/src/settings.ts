import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';

/** Every setting of the web service, read from the environment once at start. */
export const webSettingsSchema = z.object({
  BASE_URL: setting.baseUrl().default('http://localhost:8080'),
  WEB_HOST: z.string().default('127.0.0.1'),
  WEB_PORT: setting.port(8083),
  /**
   * Prometheus metrics (`GET /metrics`) on WEB_HOST, on a port of their own that the gateway and
   * the Ingress never route (the NetworkPolicies open it to the scraper only).
   */
  WEB_METRICS_PORT: setting.port(9083),
  /** host:port of auth's internal gRPC (AccountService). */
  AUTH_GRPC_ADDRESS: z.string().default('127.0.0.1:8084'),
  INTERNAL_SERVICE_TOKEN: setting.secret(32),
  LOG_LEVEL: setting.logLevel(),
});

export type WebSettings = z.infer<typeof webSettingsSchema>;
