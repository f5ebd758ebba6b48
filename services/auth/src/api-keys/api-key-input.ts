import { canonicalToolsets, TOOLSETS, type ToolsetName } from '@sheetgate/proto';
import { SheetgateError } from '@sheetgate/service-runtime';

/** Scopes a key may carry: read only, or read and write (docs/design.md §3). */
export type ApiKeyScopes = ['sheets:read'] | ['sheets:read', 'sheets:write'];

/**
 * Input a key cannot be created with. Auth is the one place these rules live: the dashboard
 * forwards what the person typed and shows this message, so it is written for the person.
 */
export class ApiKeyInputError extends SheetgateError {
  readonly field: 'userId' | 'name' | 'scopes' | 'expiresAt' | 'toolsets';
  constructor(field: ApiKeyInputError['field'], message: string) {
    super('invalid_argument', message);
    this.name = 'ApiKeyInputError';
    this.field = field;
  }
}

const MAX_NAME_LENGTH = 100;
// Control characters, and the bidirectional overrides that make a name display as something else
// ("Trojan Source", CVE-2021-42574) on the dashboard.
const FORBIDDEN_IN_NAME = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

export function validName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!trimmed) throw new ApiKeyInputError('name', 'Give the key a name.');
  if ([...trimmed].length > MAX_NAME_LENGTH) {
    throw new ApiKeyInputError('name', `The name can be at most ${MAX_NAME_LENGTH} characters.`);
  }
  if (FORBIDDEN_IN_NAME.test(trimmed)) {
    throw new ApiKeyInputError('name', 'The name must not contain control characters.');
  }
  return trimmed;
}

/** Order and duplicates do not matter; write without read does not exist (a key must read to write). */
export function validScopes(scopes: unknown): ApiKeyScopes {
  if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) {
    throw new ApiKeyInputError('scopes', 'Scopes must be a list.');
  }
  const set = new Set(scopes);
  if (set.size === 1 && set.has('sheets:read')) return ['sheets:read'];
  if (set.size === 2 && set.has('sheets:read') && set.has('sheets:write'))
    return ['sheets:read', 'sheets:write'];
  throw new ApiKeyInputError('scopes', 'Scopes must be "sheets:read" or "sheets:read sheets:write".');
}

/**
 * The toolsets a key enables, in TOOLSETS order: undefined (not asked, a caller from before
 * toolsets) is null, every set; a choice must name at least one set, each one known.
 */
export function validToolsets(toolsets: unknown): ToolsetName[] | null {
  if (toolsets === undefined || toolsets === null) return null;
  const names = Array.isArray(toolsets) ? canonicalToolsets(toolsets) : undefined;
  if (!names) {
    const known = TOOLSETS.map((set) => `"${set.name}"`).join(', ');
    throw new ApiKeyInputError('toolsets', `Toolsets must be among ${known}.`);
  }
  if (names.length === 0) throw new ApiKeyInputError('toolsets', 'Choose at least one toolset.');
  return names;
}

export function validExpiry(expiresAt: unknown, now: Date): Date | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) {
    throw new ApiKeyInputError('expiresAt', 'Expiry must be a date.');
  }
  if (expiresAt.getTime() <= now.getTime()) {
    throw new ApiKeyInputError('expiresAt', 'Expiry must be in the future.');
  }
  return expiresAt;
}

const DAY_MS = 86_400_000;
const EXPIRY_DAYS = new Set(['30', '90', '365']);
const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * When a requested key expires (undefined: never), from CreateApiKey's `expires` choice (the
 * dashboard's, as the person sent it; empty is the form's default, never) or, without one, its
 * `expires_at`. Only a date that exists counts:
 * `Date` would roll 02-31 over to 03-03. Whether the time is still in the future `validExpiry`
 * says when the key is created.
 */
export function requestedExpiry(
  request: { expires?: string | undefined; expiresAt: string },
  now: Date,
): Date | undefined {
  const { expires, expiresAt } = request;
  if (expires === undefined) {
    if (!expiresAt) return undefined;
    const time = new Date(expiresAt);
    if (Number.isNaN(time.getTime()))
      throw new ApiKeyInputError('expiresAt', 'expires_at must be a future RFC 3339 time');
    return time;
  }
  if (expires === 'never' || expires === '') return undefined;
  if (EXPIRY_DAYS.has(expires)) return new Date(now.getTime() + Number(expires) * DAY_MS);
  if (expires !== 'date') throw new ApiKeyInputError('expiresAt', 'Choose when the key expires.');
  const date = CALENDAR_DATE.test(expiresAt) ? new Date(`${expiresAt}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== expiresAt)
    throw new ApiKeyInputError('expiresAt', 'Choose the expiry date (year, month and day).');
  if (date.getTime() <= now.getTime())
    throw new ApiKeyInputError('expiresAt', 'The expiry date must be in the future.');
  return date;
}
