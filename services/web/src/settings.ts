import { outboundCeilingSettings } from '@sheetgate/proto';
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
  /**
   * host:port of mcp's internal gRPC (ChangeUndoService): the Activity page's Undo, which reads and
   * writes Google Sheets as only the MCP service does. Unreachable, Undo says so and changes nothing.
   */
  MCP_GRPC_ADDRESS: z.string().default('127.0.0.1:8085'),
  INTERNAL_SERVICE_TOKEN: setting.secret(32),
  /**
   * The Google Picker on the dashboard (GOOGLE_SCOPE_MODE=picked-files, docs/design.md §7.8): the
   * browser API key of the Cloud project (restrict it to the Picker API and this site's referrer;
   * it is public, shipped to the page) and the project number (the Picker's app id, which ties a
   * pick to Sheetgate's OAuth client). Without both, the dashboard says the Picker is not set up.
   */
  GOOGLE_PICKER_API_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'expected a Google API key')
    .optional(),
  GOOGLE_PICKER_APP_ID: z
    .string()
    .regex(/^\d{1,30}$/, 'expected the Cloud project number')
    .optional(),
  /**
   * Where the Picker's loader is (Google's api.js); the emulator's stand-in in development and
   * tests. Its origin, and the origin of the frames the Picker opens (GOOGLE_PICKER_FRAME_ORIGIN:
   * https://docs.google.com for Google's, the script's own origin otherwise), are all the
   * dashboard's CSP adds, and only in picked-files mode.
   */
  GOOGLE_PICKER_SCRIPT_URL: setting.url(['https', 'http']).default('https://apis.google.com/js/api.js'),
  GOOGLE_PICKER_FRAME_ORIGIN: setting.url(['https', 'http']).optional(),
  /**
   * The operator's ceiling on outbound actions (docs/design.md §11.10), which the MCP service
   * holds every call to: the dashboard shows what it forbids. Set both services alike.
   */
  ...outboundCeilingSettings,
  LOG_LEVEL: setting.logLevel(),
});

export type WebSettings = z.infer<typeof webSettingsSchema>;
