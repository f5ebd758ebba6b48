import { createCsrfTokens } from '@sheetgate/service-runtime';

/** What a dashboard form does; a token for one purpose is refused for any other. */
export type FormPurpose =
  | 'create-api-key'
  | 'revoke-api-key'
  | 'disconnect-app'
  | 'key-choices'
  | 'app-choices'
  | 'picker-token'
  | 'choose-files'
  | 'forget-file'
  | 'undo-change'
  | 'answer-call-approval';

/**
 * CSRF tokens for the forms web itself handles (the forms posting to auth carry auth's tokens),
 * keyed from the internal service credential and bound to the browser's session cookie (only its
 * hash is signed): useless without that cookie, and dead once its session ends.
 */
export const createFormTokens = (serviceToken: string) =>
  createCsrfTokens<FormPurpose>(serviceToken, 'dashboard form tokens v1');

export type FormTokens = ReturnType<typeof createFormTokens>;
