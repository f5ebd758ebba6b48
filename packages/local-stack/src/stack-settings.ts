import { setting } from '@sheetgate/service-runtime/settings';
import { z } from 'zod';

/**
 * Settings of `pnpm start`. Anything left unset gets the embedded default of docs/design.md §6, so
 * that a fresh clone runs with no configuration at all.
 */
export const stackSettingsSchema = z.object({
  PORT: setting.port(8080),
  /** Public origin; defaults to http://localhost:$PORT. */
  BASE_URL: setting.baseUrl().optional(),
  AUTH_PORT: setting.port(8081),
  MCP_PORT: setting.port(8082),
  WEB_PORT: setting.port(8083),
  AUTH_GRPC_PORT: setting.port(8084),
  /** mcp's internal gRPC: the dashboard's Undo (web → mcp). */
  MCP_GRPC_PORT: setting.port(8085),
  /** Each service's Prometheus `/metrics` listener (the services' own defaults). */
  AUTH_METRICS_PORT: setting.port(9081),
  MCP_METRICS_PORT: setting.port(9082),
  WEB_METRICS_PORT: setting.port(9083),
  GOOGLE_EMULATOR_PORT: setting.port(8090),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: setting.url(['postgres', 'postgresql']).optional(),
  REDIS_URL: setting.url(['redis', 'rediss']).optional(),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_CLIENT_SECRET: z.string().optional(),
  AUTH_SIGNING_KEYS: z.string().optional(),
  /**
   * The Google scopes auth asks for (docs/design.md §7.8): `standard`, or `picked-files`
   * (drive.file only; the dashboard's "Choose spreadsheets" opens the Google Picker, the
   * emulator's own when it stands in for Google).
   */
  GOOGLE_SCOPE_MODE: z.enum(['standard', 'picked-files']).default('standard'),
  LOG_LEVEL: setting.logLevel(),
});

export type StackSettings = z.infer<typeof stackSettingsSchema>;

export type StackPortSetting = {
  [Name in keyof StackSettings]-?: Name extends 'PORT' | `${string}_PORT` ? Name : never;
}[keyof StackSettings];

/** Every port `pnpm start` listens on, by its setting: the gateway's, each service's, the emulator's. */
export const stackPortSettings = Object.keys(stackSettingsSchema.shape).filter(
  (name): name is StackPortSetting => name === 'PORT' || name.endsWith('_PORT'),
);

/** Real Google needs both halves of the client credential; either alone is a mistake to report. */
export function usesGoogleEmulator(settings: StackSettings): boolean {
  const hasId = Boolean(settings.GOOGLE_CLIENT_ID);
  const hasSecret = Boolean(settings.GOOGLE_CLIENT_SECRET);
  if (hasId !== hasSecret) {
    throw new Error(
      'set both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET to use real Google, or neither for the emulator',
    );
  }
  return !hasId;
}
