import { SheetgateError } from '@sheetgate/service-runtime';

/** Scopes a key may carry: read only, or read and write (DESIGN §3). */
export type ApiKeyScopes = ['sheets:read'] | ['sheets:read', 'sheets:write'];

/** Input the dashboard sent that a key cannot be created with; the message is safe to show. */
export class ApiKeyInputError extends SheetgateError {
  readonly field: 'userId' | 'name' | 'scopes' | 'expiresAt';
  constructor(field: ApiKeyInputError['field'], message: string) {
    super('invalid_argument', message);
    this.name = 'ApiKeyInputError';
    this.field = field;
  }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_NAME_LENGTH = 100;
// Control characters, and the bidirectional overrides that make a name display as something else
// ("Trojan Source", CVE-2021-42574) on the dashboard.
const FORBIDDEN_IN_NAME = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

export function validName(name: unknown): string {
  if (typeof name !== 'string') throw new ApiKeyInputError('name', 'Name is required.');
  const trimmed = name.trim();
  const length = [...trimmed].length;
  if (length < 1 || length > MAX_NAME_LENGTH) {
    throw new ApiKeyInputError('name', `Name must be 1 to ${MAX_NAME_LENGTH} characters.`);
  }
  if (FORBIDDEN_IN_NAME.test(trimmed)) {
    throw new ApiKeyInputError('name', 'Name must not contain control characters.');
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
