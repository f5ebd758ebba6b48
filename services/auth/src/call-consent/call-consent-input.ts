import type { CallCredential } from '@sheetgate/proto';
import { isUuid, SheetgateError } from '@sheetgate/service-runtime';
import { z } from 'zod';
import { mayBeClientId } from './app-choices.ts';

/** An approval's id: 128 random bits, unpadded base64url (the link carries it, signed). */
export const APPROVAL_ID = /^[A-Za-z0-9_-]{22}$/;
/** The longest an approval may wait: twice a requestState's five minutes. */
export const MAX_VALID_FOR_MS = 600_000;
export const MAX_SENTENCE_CHARS = 4_000;

/** A call's credential, checked: a user's API key or connected app. */
export type CheckedCredential = { userId: string } & (
  | { kind: 'api_key'; apiKeyId: string }
  | { kind: 'app'; clientId: string }
);

const invalid = (message: string) => new SheetgateError('invalid_argument', message);

/**
 * The credential of a CallConsentService request: exactly one of an API key's id (a UUID) and an
 * OAuth client's id, for a user id (a UUID). Anything else is INVALID_ARGUMENT.
 */
export function checkedCredential(credential: CallCredential | undefined): CheckedCredential {
  if (!credential) throw invalid('credential is required');
  const { userId, apiKeyId, clientId } = credential;
  if (!isUuid(userId)) throw invalid('credential.user_id must be a user id');
  if ((apiKeyId === undefined) === (clientId === undefined))
    throw invalid('credential must name exactly one of api_key_id and client_id');
  if (apiKeyId !== undefined) {
    if (!isUuid(apiKeyId)) throw invalid('credential.api_key_id must be an API key id');
    return { userId, kind: 'api_key', apiKeyId };
  }
  if (!mayBeClientId(clientId!)) throw invalid('credential.client_id must be an OAuth client id');
  return { userId, kind: 'app', clientId: clientId! };
}

// Control characters (a line break and a tab excepted) and the bidirectional overrides that make
// text display as something else ("Trojan Source", CVE-2021-42574): the page shows the sentence to
// the person as the words they approve.
const FORBIDDEN_IN_SENTENCE = /(?![\n\t])\p{Cc}|[\u202A-\u202E\u2066-\u2069]/u;

/** What CreateCallApproval records besides the credential; an MCP tool's name is its heading. */
export const callApprovalInput = z.object({
  tool: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'tool must be a tool name of at most 100 characters'),
  sentence: z
    .string()
    .refine(
      (text) => text.trim().length > 0 && [...text].length <= MAX_SENTENCE_CHARS,
      `sentence must be 1 to ${MAX_SENTENCE_CHARS} characters`,
    )
    .refine((text) => !FORBIDDEN_IN_SENTENCE.test(text), 'sentence must not contain control characters'),
  validForMs: z
    .number()
    .int()
    .min(1, `valid_for_ms must be 1..${MAX_VALID_FOR_MS}`)
    .max(MAX_VALID_FOR_MS, `valid_for_ms must be 1..${MAX_VALID_FOR_MS}`),
});

export type CallApprovalInput = z.infer<typeof callApprovalInput>;

/** The request's fields through `callApprovalInput`, or INVALID_ARGUMENT naming the first fault. */
export function checkedCallApprovalInput(request: unknown): CallApprovalInput {
  const parsed = callApprovalInput.safeParse(request);
  if (!parsed.success) throw invalid(parsed.error.issues[0]!.message);
  return parsed.data;
}
