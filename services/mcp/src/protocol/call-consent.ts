import type { CredentialChoices } from '@sheetgate/proto';
import { ToolError } from '../errors/tool-error.ts';
import type { OutboundAction } from '../tools/guards/outbound-actions.ts';
import type { ToolContext, ToolDefinition } from '../tools/kit/tool-definition.ts';
import { type CallConsents, ConsentUnavailable } from './call-consents.ts';
import {
  APPROVE_KEY,
  answerOf,
  askByForm,
  askByUrl,
  CONFIRM_KEY,
  type Consent,
  claimOrRefuse,
  confirms,
  refused,
} from './confirmations.ts';
import {
  consentUnavailable,
  declinedOnPage,
  destroyRefusal,
  notConfirmed,
  outboundRefusal,
  outboundSentence,
} from './consent-words.ts';
import { JsonRpcErrorCode } from './json-rpc.ts';
import type { Era } from './protocol-versions.ts';
import {
  type RequestStateCodec,
  STATE_LIFETIME_MS,
  type StateBinding,
  type StateCheck,
} from './request-state.ts';
import { RpcFailure } from './rpc-failure.ts';

/**
 * How the person can be asked through the client (docs/design.md §15): `form` — a 2026-07-28
 * client declaring form elicitation (`elicitation: {}` implies it); `url` — one declaring URL mode
 * only; `none` — every legacy-era request (calls in a 2025-03-26 batch included: server-initiated
 * requests need a stream a stateless replica cannot keep) and modern clients without elicitation.
 */
export type ClientShape = 'form' | 'url' | 'none';

export function clientShape(call: { era: Era; clientCapabilities?: Record<string, unknown> }): ClientShape {
  if (call.era !== 'modern') return 'none';
  const elicitation = call.clientCapabilities?.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return 'none';
  const modes = elicitation as Record<string, unknown>;
  if (modes.form !== undefined || modes.url === undefined) return 'form';
  return 'url';
}

const PROCEED: Consent = { proceed: true };

/**
 * The consent step of every tools/call, both eras, before the tool runs (issue 37; docs/design.md
 * §11.10 and §15), in this order:
 * 1. the call's outbound actions (`describeOutbound`: the operator's ceiling refuses first) — those
 *    its arguments name first (`describeOutboundByArguments`), then what Google must be asked;
 * 2. outbound actions: the credential's choice `may_act_outbound` (read from auth, fail closed) —
 *    not allowed: refused before Google is asked to change anything, whoever the client (a dry run
 *    alike), and before Google is asked anything when the arguments alone are outbound; allowed:
 *    asked by form or on the approval page when the client can, else run;
 * 3. a destructive call (`describeLoss` names a loss; not a dry run): asked by form or on the
 *    approval page when the client can; a client that cannot ask runs it only when the credential's
 *    `may_destroy_unasked` allows — also when it is outbound and allowed as such: asked neither way,
 *    the person's "may not delete without asking" holds.
 * One question per call names all of it. The dashboard's own undo is the person: never asked.
 */
export async function consentToCall(options: {
  tool: ToolDefinition;
  input: unknown;
  /** The arguments as the client sent them (what a requestState binds). */
  args: unknown;
  params: Record<string, unknown>;
  shape: ClientShape;
  context: ToolContext;
  states: RequestStateCodec;
  consents: CallConsents;
  dashboardUrl: string;
}): Promise<Consent> {
  const { tool, input, params, shape, context, states, consents } = options;
  const { auth } = context;
  if (auth.credential === 'dashboard') return PROCEED;
  if (!tool.describeOutbound && !tool.describeLoss) return PROCEED;
  const dryRun = (input as { dryRun?: unknown } | null)?.dryRun === true;
  const binding: StateBinding = { auth, method: 'tools/call', target: tool.name, args: options.args };
  // A presented state is checked before anything is read from Google for it.
  let check: StateCheck | undefined;
  if (shape !== 'none' && params.requestState !== undefined) {
    check = await states.verify(params.requestState, binding);
    if (!check.ok && !check.askAgain)
      throw new RpcFailure(JsonRpcErrorCode.InvalidParams, `requestState refused: ${check.reason}`);
  }

  // Read from auth at most once, and only when the call needs them.
  let choices: Promise<CredentialChoices> | undefined;
  const readChoices = (outbound: boolean) => {
    choices ??= unlessUnavailable(auth, outbound, () => consents.choices(auth, context.signal));
    return choices;
  };
  // Outbound by its arguments alone (a fetch formula, a link share): the choice is read before
  // Google is asked anything for the call (a write's owners read, a grantee's), which could only
  // add to a refusal.
  const named: OutboundAction[] = tool.describeOutboundByArguments
    ? await tool.describeOutboundByArguments(input as never, context)
    : [];
  if (named.length > 0 && !(await readChoices(true)).mayActOutbound)
    return refused(outboundRefusal(auth, named, options.dashboardUrl));
  const actions: OutboundAction[] = tool.describeOutbound
    ? await tool.describeOutbound(input as never, context)
    : [];
  const outbound = actions.length > 0;
  if (outbound && !(await readChoices(true)).mayActOutbound)
    return refused(outboundRefusal(auth, actions, options.dashboardUrl));
  // A dry run changes and sends nothing: it asks nobody (an outbound one learnt the choice above).
  if (dryRun) return PROCEED;
  if (!tool.describeLoss && (!outbound || shape === 'none')) return PROCEED;

  if (shape === 'none') {
    if (!tool.describeLoss || (await readChoices(outbound)).mayDestroyUnasked) return PROCEED;
    const loss = await tool.describeLoss(input as never, context);
    return loss === null ? PROCEED : refused(destroyRefusal(auth, loss, options.dashboardUrl));
  }

  const loss = tool.describeLoss ? await tool.describeLoss(input as never, context) : null;
  if (!outbound && loss === null) return PROCEED;
  const said = outbound ? outboundSentence(tool, input, actions) : '';
  const sentence = [said, loss ?? ''].filter(Boolean).join(' ');
  const sign = (approvalId?: string) => states.sign(binding, sentence, approvalId);

  if (shape === 'form') {
    // No state, a lapsed one, one of the approval page, or one showing another sentence than the
    // call would cause now (the sheet changed meanwhile): the person is asked about it as it is now.
    if (!check?.ok || check.approvalId !== undefined || !check.wasShown(sentence))
      return askByForm(sentence, await sign());
    const answer = answerOf(params, CONFIRM_KEY);
    // A retry without the answer is asked again (MRTR: missing input is requested, not an error).
    if (answer === undefined) return askByForm(sentence, await sign());
    if (!confirms(answer)) return refused(notConfirmed(sentence, outbound));
    return claimOrRefuse(check.claim);
  }

  // URL mode: the call waits on a call approval the person answers on Sheetgate's page.
  const approvals = {
    create: async () => {
      const id = await unlessUnavailable(auth, outbound, () =>
        consents.createApproval(auth, tool.name, sentence, STATE_LIFETIME_MS),
      );
      return askByUrl(sentence, { id, url: consents.approvalUrl(id) }, await sign(id));
    },
  };
  if (!check?.ok || check.approvalId === undefined || !check.wasShown(sentence)) return approvals.create();
  const approvalId = check.approvalId;
  const answer = answerOf(params, APPROVE_KEY);
  // The client's own decline or cancel (the person would not open the page): nothing runs, and the
  // approval left pending expires harmless.
  if (answer && answer.action !== 'accept') return refused(notConfirmed(sentence, outbound));
  const standing = await unlessUnavailable(auth, outbound, () => consents.standing(auth, approvalId));
  switch (standing) {
    case 'approved':
      return claimOrRefuse(check.claim);
    case 'declined':
      return refused(declinedOnPage(sentence, outbound));
    case 'pending':
      return askByUrl(
        sentence,
        { id: approvalId, url: consents.approvalUrl(approvalId) },
        await sign(approvalId),
      );
    default:
      return approvals.create();
  }
}

async function unlessUnavailable<T>(
  auth: ToolContext['auth'],
  outbound: boolean,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ConsentUnavailable) throw new ToolError(consentUnavailable(auth, outbound));
    throw error;
  }
}
