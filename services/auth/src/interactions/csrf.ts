import { createCsrfTokens as createTokens, HttpError } from '@sheetgate/service-runtime';

/** What an auth form does: consent binds to an interaction uid, sign-out to a session id. */
export type AuthFormPurpose = 'consent' | 'sign-out';

/**
 * CSRF tokens for the forms the browser posts to auth (consent, sign-out), keyed from the cookie
 * key. Web renders them (it gets them over AccountService) and auth checks them.
 */
export const createCsrfTokens = (cookieKey: string) =>
  createTokens<AuthFormPurpose>(cookieKey, 'auth form tokens v1');

export type CsrfTokens = ReturnType<typeof createCsrfTokens>;

/** The refusal of an auth form posted without its token, or from another origin. */
export const formExpired = () => new HttpError(403, 'invalid_csrf', 'the form has expired; reload the page');
