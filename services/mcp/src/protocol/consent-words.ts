import type { AuthInfo } from '../auth/auth-info.ts';
import type { OutboundAction } from '../tools/guards/outbound-actions.ts';

/**
 * What the consent step (call-consent.ts) says to the person and the model: the question, and the
 * refusals that name what would have been sent or lost, the credential, and where to allow it.
 * The two choices are named as the key form, the consent screen and the dashboard show them.
 */
export const OUTBOUND_CHOICE = 'May share and send outside your account';
export const DESTROY_CHOICE = 'A client that cannot ask me may delete and clear without asking';

const RETRY_AFTER_SECONDS = 5;

/** "API key" or "app": which kind of credential the person would change (its name is auth's). */
function credentialWords(auth: AuthInfo): string {
  return auth.credential === 'api_key' ? 'API key' : 'app';
}

/**
 * What an outbound call sends to whom, for the question and the approval page:
 * `Share a file (1AbC…) sends outside your account: mallory@gmail.com gets writer access.`
 */
export function outboundSentence(
  tool: { title: string },
  input: unknown,
  actions: readonly OutboundAction[],
): string {
  const args = (input ?? {}) as { spreadsheetId?: unknown; fileId?: unknown };
  const target = [args.spreadsheetId, args.fileId].find((value) => typeof value === 'string');
  const what = target === undefined ? tool.title : `${tool.title} (${target})`;
  return `${what} sends outside your account: ${actions.map((action) => action.words).join('; ')}.`;
}

/** Whom the refusals say nothing reached: Google for an outbound call, the files otherwise. */
export function nothingDone(outbound: boolean): string {
  return outbound ? 'Nothing was sent to Google' : 'Nothing was changed';
}

export function outboundRefusal(
  auth: AuthInfo,
  actions: readonly OutboundAction[],
  dashboardUrl: string,
): string {
  return `Nothing was sent to Google: ${actions.map((action) => action.words).join('; ')}. This ${credentialWords(auth)} may not share or send outside your account; the person can allow it on the dashboard (${dashboardUrl}, "${OUTBOUND_CHOICE}"), no reconnecting needed.`;
}

export function destroyRefusal(auth: AuthInfo, loss: string, dashboardUrl: string): string {
  return `Nothing was changed: this client cannot ask you to confirm, and this ${credentialWords(auth)} may not delete or clear without asking. ${loss} Allow it on the dashboard (${dashboardUrl}, "${DESTROY_CHOICE}"), or use a client that can ask.`;
}

export function consentUnavailable(auth: AuthInfo, outbound: boolean): string {
  return `${nothingDone(outbound)}: Sheetgate could not check what you allow this ${credentialWords(auth)} right now (temporarily unavailable); try again in ${RETRY_AFTER_SECONDS} seconds.`;
}

export function notConfirmed(sentence: string, outbound: boolean): string {
  return `${nothingDone(outbound)}: the person did not confirm. ${sentence}`;
}

export function declinedOnPage(sentence: string, outbound: boolean): string {
  return `${nothingDone(outbound)}: the person declined on the approval page. ${sentence}`;
}
