import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';

const commaList = (check: (item: string) => boolean, message: string) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .refine((items) => items.length > 0 && items.every(check), { error: message });

const isEmail = (item: string) => z.email().safeParse(item).success;
const isHttpUrl = (item: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(item).protocol);
  } catch {
    return false;
  }
};

/** The emulator CLI's settings, keyed by environment variable. */
export const emulatorSettingsSchema = z.object({
  GOOGLE_EMULATOR_PORT: setting.port(8090),
  GOOGLE_EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  /** The URL clients reach it at, when not http://host:port (e.g. behind a proxy or in a container). */
  GOOGLE_EMULATOR_URL: setting.baseUrl().optional(),
  GOOGLE_EMULATOR_ACCOUNTS: commaList(isEmail, 'expected comma-separated email addresses').optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_EMULATOR_REDIRECT_URIS: commaList(isHttpUrl, 'expected comma-separated http(s) URLs').optional(),
  GOOGLE_EMULATOR_ACCESS_TOKEN_TTL: z.coerce
    .number({ error: 'expected a number of seconds' })
    .int('expected a whole number of seconds')
    .min(1, 'expected at least 1 second')
    .max(86_400, 'expected at most 86400 seconds')
    .default(3600),
  GOOGLE_EMULATOR_AUTHORIZATION_CODE_TTL: z.coerce
    .number({ error: 'expected a number of seconds' })
    .int('expected a whole number of seconds')
    .min(1, 'expected at least 1 second')
    .max(3600, 'expected at most 3600 seconds')
    .default(600),
  GOOGLE_EMULATOR_SCOPE_CHECKBOXES: z.enum(['ticked', 'unticked']).default('ticked'),
  LOG_LEVEL: setting.logLevel(),
});

export type EmulatorSettings = z.infer<typeof emulatorSettingsSchema>;
