import { randomBytes } from 'node:crypto';
import { API_KEY_PREFIX, ISSUED_API_KEY } from '@sheetgate/proto';

/**
 * The whole key: the prefix and 256 random bits in unpadded base64url (43 characters), as
 * @sheetgate/proto defines it for auth and mcp alike. Register this with secret scanners (GitHub
 * custom patterns, gitleaks, trufflehog): `sg_live_[A-Za-z0-9_-]{43}`.
 */
export const API_KEY_PATTERN = ISSUED_API_KEY;

const SECRET_BYTES = 32;
/** The prefix plus 4 characters (24 bits): enough to tell keys apart on the dashboard, useless to guess. */
const DISPLAY_PREFIX_LENGTH = 12;

export function generateApiKey(): { secret: string; displayPrefix: string } {
  const secret = `${API_KEY_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { secret, displayPrefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/**
 * Whether a presented value could be a key we issued. Checked before anything else, so garbage of
 * any size or type is refused without hashing it or asking the database. The length test comes
 * first so a megabyte of input costs nothing beyond reading its length.
 */
export function isWellFormedApiKey(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length === API_KEY_PREFIX.length + 43 &&
    API_KEY_PATTERN.test(value) &&
    // 43 characters carry 258 bits; a key we issued has the 2 spare bits at zero, and only that
    // canonical spelling is accepted.
    Buffer.from(value.slice(API_KEY_PREFIX.length), 'base64url').toString('base64url') ===
      value.slice(API_KEY_PREFIX.length)
  );
}
