/**
 * One to 64 base64url characters: the shape of an oidc-provider interaction uid (and of the
 * nonces Sheetgate's forms carry). Anything else names nothing and is refused before any lookup.
 */
export const URL_SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export const isUrlSafeId = (value: unknown): value is string =>
  typeof value === 'string' && URL_SAFE_ID.test(value);

/** An oidc-provider interaction uid, as /api/auth/interaction/:uid, /login and /authorize take it. */
export const isInteractionUid = isUrlSafeId;
