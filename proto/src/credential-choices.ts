import type { CredentialChoices } from '../gen/sheetgate/v1/call_consent.ts';

/**
 * A credential's choices when the person never made them (docs/design.md §11.10): nothing is sent
 * outside the account, and a client that cannot ask may destroy without asking (every change can
 * be undone; a share sent or a message mailed cannot).
 */
export const DEFAULT_CREDENTIAL_CHOICES: Readonly<CredentialChoices> = Object.freeze({
  mayActOutbound: false,
  mayDestroyUnasked: true,
});
