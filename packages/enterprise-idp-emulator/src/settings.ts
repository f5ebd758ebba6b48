import { setting } from '@sheetgate/service-runtime';
import { z } from 'zod';

const json = <T extends z.ZodType>(schema: T, example: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx): z.infer<T> | undefined => {
      if (!value) return undefined;
      try {
        return schema.parse(JSON.parse(value));
      } catch {
        ctx.addIssue({ code: 'custom', message: `expected JSON like ${example}` });
        return z.NEVER;
      }
    });

const person = z.object({ sub: z.string().min(1), email: z.email(), name: z.string().optional() }).strict();
const exchange = z
  .object({
    audience: z.string().min(1),
    resource: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).min(1),
    clientIdAtAudience: z.string().min(1),
    people: z.array(z.string().min(1)).optional(),
  })
  .strict();
const client = z
  .object({
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    redirectUris: z.array(z.url()).optional(),
    exchanges: z.array(exchange).optional(),
  })
  .strict();

/** The emulator CLI's settings, keyed by environment variable (README.md lists them). */
export const idpEmulatorSettingsSchema = z.object({
  ENTERPRISE_IDP_EMULATOR_PORT: setting.port(8095),
  ENTERPRISE_IDP_EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  ENTERPRISE_IDP_EMULATOR_URL: setting.baseUrl().optional(),
  ENTERPRISE_IDP_EMULATOR_PEOPLE: json(
    z.array(person).min(1),
    '[{"sub":"00u-alice","email":"alice@example.com"}]',
  ),
  ENTERPRISE_IDP_EMULATOR_CLIENTS: json(
    z.array(client),
    '[{"clientId":"agent","clientSecret":"…","exchanges":[{"audience":"http://localhost:8080","resource":"http://localhost:8080/api/mcp","scopes":["sheets:read"],"clientIdAtAudience":"…"}]}]',
  ),
  ENTERPRISE_IDP_EMULATOR_ID_JAG_TTL: z.coerce.number().int().min(1).max(3_600).default(300),
  LOG_LEVEL: setting.logLevel(),
});
