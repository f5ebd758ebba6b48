import { z } from 'zod';
import { DEFAULT_TRUSTED_PROXIES, parseTrustedProxies } from './client-address.ts';

/**
 * Raised when the environment does not satisfy a service's settings schema. `lines` holds one
 * human-readable line per bad setting, each naming the variable.
 */
export class SettingsError extends Error {
  readonly lines: string[];
  constructor(service: string, lines: string[]) {
    super(lines.map((line) => `${service}: ${line}`).join('\n'));
    this.name = 'SettingsError';
    this.lines = lines;
  }
}

/** Parses `env` with a zod object schema whose keys are environment variable names. */
export function parseSettings<Schema extends z.ZodObject>(
  service: string,
  schema: Schema,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<Schema> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    input[key] = value === '' ? undefined : value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(settings)';
    const key = String(issue.path[0]);
    return `invalid setting ${name}: ${issue.message} (${describeReceived(key, schema.shape[key], input[key])})`;
  });
  throw new SettingsError(service, lines);
}

/**
 * Loads settings for a process entry point: on failure prints one line per bad setting on stderr
 * and exits with status 78 (EX_CONFIG), so a misconfigured pod fails fast and says why.
 */
export function loadSettingsOrExit<Schema extends z.ZodObject>(
  service: string,
  schema: Schema,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<Schema> {
  try {
    return parseSettings(service, schema, env);
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

// Names that carry a credential whatever their schema says (defence in depth for a field someone
// forgot to declare with `setting.secret`).
const SECRET_NAME = /(TOKENS?|SECRETS?|PASSWORDS?|PEPPER|_KEYS?)$/;

/** Whether a setting holds a credential: declared with `setting.secret`, or named like one. */
function isSecretSetting(name: string, field: unknown): boolean {
  return SECRET_NAME.test(name) || hasSecretMeta(field);
}

function hasSecretMeta(field: unknown): boolean {
  for (let type = field as z.ZodType | undefined; type; ) {
    if ((type.meta() as { secret?: boolean } | undefined)?.secret) return true;
    type = (type as { _zod: { def: { innerType?: z.ZodType } } })._zod.def.innerType;
  }
  return false;
}

/**
 * What an error line says about the value it refused. A secret is never echoed, only its length;
 * a URL loses its user information and query (where PostgreSQL and Redis URLs carry passwords);
 * anything else is shown, shortened when long.
 */
function describeReceived(name: string, field: unknown, received: string | undefined): string {
  if (received === undefined) return 'it is not set';
  if (isSecretSetting(name, field)) return `got ${received.length} characters`;
  const urlLike = received.includes('://') || /_(URL|ADDRESS)$/.test(name);
  return `got ${JSON.stringify(truncate(urlLike ? withoutCredentials(received) : received))}`;
}

/**
 * `scheme://user:password@host/db?password=x` → `scheme://…@host/db?…`; also without a scheme
 * (`user:password@host`, a URL missing its `postgres://`), since that is where a password hides.
 */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i, '$1…@').replace(/\?.*$/s, '?…');
}

// A long value is shown by its start: enough to recognise it in an error line.
function truncate(value: string): string {
  return value.length > 60 ? `${value.slice(0, 20)}…` : value;
}

/** Reusable field schemas, so that every service validates the same kinds of setting alike. */
export const setting = {
  port: (fallback: number) =>
    z.coerce
      .number({ error: 'expected a port number' })
      .int('expected a whole port number')
      .min(1, 'expected a port number from 1 to 65535')
      .max(65535, 'expected a port number from 1 to 65535')
      .default(fallback),
  url: (protocols: string[]) =>
    z.string().refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
        } catch {
          return false;
        }
      },
      { error: `expected a URL (${protocols.join(' or ')})` },
    ),
  /** The public origin: an absolute http(s) URL without path, query or fragment. */
  baseUrl: () =>
    z
      .string()
      .refine(
        (value) => {
          try {
            const url = new URL(value);
            return (
              (url.protocol === 'http:' || url.protocol === 'https:') &&
              (url.pathname === '/' || url.pathname === '') &&
              !url.search &&
              !url.hash &&
              !url.username
            );
          } catch {
            return false;
          }
        },
        { error: 'expected an http(s) origin such as https://sheets.example.com (no path)' },
      )
      .transform((value) => value.replace(/\/+$/, '')),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * TRUSTED_PROXIES: who may say who the client is through X-Forwarded-For (client-address.ts).
   * Comma-separated addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`.
   */
  trustedProxies: () =>
    z
      .string()
      .default(DEFAULT_TRUSTED_PROXIES)
      .transform((value, ctx) => {
        try {
          return parseTrustedProxies(value);
        } catch (error) {
          ctx.addIssue({
            code: 'custom',
            message: `expected addresses, CIDR ranges or loopback/linklocal/uniquelocal, comma-separated (${(error as Error).message})`,
          });
          return z.NEVER;
        }
      }),
  /** A credential: an error line never echoes it (only its length). */
  secret: (minLength: number) =>
    z.string().min(minLength, `expected a secret of at least ${minLength} characters`).meta({ secret: true }),
};
