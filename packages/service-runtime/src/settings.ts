import { z } from 'zod';

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
    const received = input[String(issue.path[0])];
    const shown = received === undefined ? 'it is not set' : `got ${JSON.stringify(truncate(received))}`;
    return `invalid setting ${name}: ${issue.message} (${shown})`;
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

// Settings that look secret are never echoed back in an error line in full.
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
  secret: (minLength: number) =>
    z.string().min(minLength, `expected a secret of at least ${minLength} characters`),
};
