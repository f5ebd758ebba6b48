import type { CallApproval } from '@sheetgate/proto';
import { html, type SafeHtml, untrustedName } from '../html/html.ts';
import { type HeaderAccount, renderPage } from '../html/layout.ts';
import { displayTime } from '../html/time.ts';

/** What the approval page shows: the call as auth holds it, and what was just done with it. */
export interface CallApprovalView {
  approval: CallApproval;
  account: HeaderAccount;
  /** The page's own path (`/approve/<id>.<signature>`): the form posts back to it. */
  path: string;
  /** Web's CSRF token for the Approve / Decline form (pending only). */
  csrfToken: string;
  /** This request answered the call (the first answer): say what happened. */
  justAnswered?: boolean;
}

// Bidirectional controls could reorder the sentence around a title or address chosen by someone
// else ("Trojan Source"); shown as a visible mark, like untrustedName. Newlines stay.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

const shownSentence = (sentence: string) =>
  sentence.replace(BIDI_CONTROLS, '\ufffd').replace(CONTROL_CHARACTERS, '\ufffd');

const isApiKey = (approval: CallApproval) => approval.credentialKind === 'api_key';

/** Who asked, in a sentence: the API key by its name, or the app. */
function asker(approval: CallApproval): SafeHtml {
  const name = untrustedName(approval.credentialLabel);
  return isApiKey(approval) ? html`the API key ${name}` : html`the app ${name}`;
}

/** Where the person goes back to, for "You can return to …". */
function returnTo(approval: CallApproval): SafeHtml {
  const name = untrustedName(approval.credentialLabel);
  return isApiKey(approval) ? html`the program using your API key ${name}` : name;
}

function details(approval: CallApproval): SafeHtml {
  return html`<section aria-labelledby="call">
<h2 id="call">The call</h2>
<p>Asked by ${asker(approval)} (${isApiKey(approval) ? 'API key' : 'app'}), to run the tool <code>${approval.tool}</code>:</p>
<blockquote class="call-sentence">${shownSentence(approval.sentence)}</blockquote>
</section>`;
}

function pending(view: CallApprovalView): SafeHtml {
  const { approval } = view;
  return html`<h1>Approve this call?</h1>
${details(approval)}
<p>This request expires at ${displayTime(approval.expiresAt, 'an unknown time')}. Approve it only if you expect
${asker(approval)} to do this; nothing happens until you do.</p>
<form method="post" action="${view.path}" aria-label="Approve or decline this call">
<input type="hidden" name="csrf" value="${view.csrfToken}">
<div class="actions">
<button type="submit" name="answer" value="approve" class="primary">Approve</button>
<button type="submit" name="answer" value="decline">Decline</button>
</div>
</form>`;
}

function answeredNow(approval: CallApproval): SafeHtml {
  const approved = approval.state === 'CALL_APPROVAL_STATE_APPROVED';
  return html`<h1>${approved ? 'You approved this call' : 'You declined this call'}</h1>
<div class="notice" role="status"><p>${approved ? '' : 'It will not run: nothing is changed or sent for it. '}You can
return to ${returnTo(approval)}; it goes on when it retries.</p></div>
${details(approval)}`;
}

function answeredBefore(approval: CallApproval): SafeHtml {
  const approved = approval.state === 'CALL_APPROVAL_STATE_APPROVED';
  return html`<h1>This call was already answered</h1>
<div class="notice" role="status"><p>You ${approved ? 'approved' : 'declined'} this call at
${displayTime(approval.answeredAt, 'an earlier time')}; it cannot be answered again.</p></div>
${details(approval)}`;
}

function expired(approval: CallApproval): SafeHtml {
  return html`<h1>This request has expired</h1>
<div class="warning" role="status"><p>It was not answered before ${displayTime(approval.expiresAt, 'its time ran out')},
so the call did not run and it cannot be answered any more. If you still want it, ask
${returnTo(approval)} to try again: it will ask you anew.</p></div>
${details(approval)}`;
}

/**
 * The approval page (URL-mode elicitation, docs/design.md §11.10, §15): a call an API key or app
 * made that waits for the signed-in person's Approve or Decline, or how it was answered.
 */
export function callApprovalPage(view: CallApprovalView): string {
  const { approval } = view;
  const body =
    approval.state === 'CALL_APPROVAL_STATE_PENDING'
      ? pending(view)
      : approval.state === 'CALL_APPROVAL_STATE_EXPIRED'
        ? expired(approval)
        : view.justAnswered
          ? answeredNow(approval)
          : answeredBefore(approval);
  const title =
    approval.state === 'CALL_APPROVAL_STATE_PENDING'
      ? 'Approve this call?'
      : approval.state === 'CALL_APPROVAL_STATE_EXPIRED'
        ? 'Request expired'
        : 'Call answered';
  return renderPage({ title, body, narrow: true, account: view.account });
}
