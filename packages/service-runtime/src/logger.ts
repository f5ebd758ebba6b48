import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

const REDACTED = '[redacted]';

// Keys whose values are credentials wherever they appear in a logged object.
const SECRET_KEYS = [
  'authorization',
  'x-api-key',
  'cookie',
  'set-cookie',
  'password',
  'secret',
  'client_secret',
  'clientSecret',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'idToken',
  'code',
  'code_verifier',
  'apiKey',
  'api_key',
  'key',
  'privateKey',
  'serviceToken',
];
const secretKeySet = new Set(SECRET_KEYS.map((key) => key.toLowerCase()));

// Values that look like credentials even under an innocent key or inside a message.
const SECRET_PATTERNS: RegExp[] = [
  /\beyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*/g, // JWT / JWS compact serialisation
  /\bsg_[a-z]+_[A-Za-z0-9_-]{16,}/g, // Sheetgate API keys
  /\bya29\.[\w-]{10,}/g, // Google access tokens
  /\b1\/\/[\w-]{20,}/g, // Google refresh tokens
  /\bGOCSPX-[\w-]{10,}/g, // Google client secrets
  /\b(Bearer|Basic)\s+[\w\-.~+/]+=*/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

// Something each pattern above must contain: a string without any of these is returned as it is
// after one scan instead of seven (most logged strings: every request line has three).
const MAY_HOLD_SECRET = /eyJ|sg_|ya29\.|1\/\/|GOCSPX-|bearer|basic|PRIVATE KEY/i;

/** Replaces anything credential-shaped in a string. */
export function scrubSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let scrubbed = text;
  for (const pattern of SECRET_PATTERNS) scrubbed = scrubbed.replace(pattern, REDACTED);
  return scrubbed;
}

/** Deep copy of a log object with secret keys and credential-shaped strings replaced. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[depth]';
  if (typeof value === 'string') return scrubSecrets(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  if (value instanceof Error) {
    return { type: value.name, message: scrubSecrets(value.message), stack: scrubSecrets(value.stack ?? '') };
  }
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      copy[key] = secretKeySet.has(key.toLowerCase()) ? REDACTED : redactValue(inner, depth + 1);
    }
    return copy;
  }
  return value;
}

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Where lines go; standard output unless a test captures them. */
  destination?: DestinationStream;
}

/**
 * A pino logger whose every line passes through `redactValue`: pino's own `redact` option only
 * masks listed paths, and a credential can hide in any field or message (an error message that
 * quotes a header, a URL with `?code=`), so we scrub values by shape as well as by key.
 */
export function createLogger({ service, level = 'info', destination }: LoggerOptions): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactValue(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg));
          method.apply(this, scrubbed as Parameters<typeof method>);
        },
      },
    },
    // Each line written at once (pino's own default). The asynchronous destination handed every
    // line to libuv's thread pool: a switch to a pool thread and back per request, which for the
    // MCP service pinned to one core was a large share of its main thread's profile per tool call
    // in bench:latency (docs/benchmarks.md). The price: a reader that stops reading standard output holds the process
    // (pnpm start and container runtimes read it continuously).
    destination ?? pino.destination({ fd: 1, sync: true }),
  );
}
