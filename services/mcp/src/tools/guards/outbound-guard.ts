import type { AuthInfo } from '../../auth/auth-info.ts';
import { ToolError } from '../../errors/tool-error.ts';
import { runMarkedOutbound } from '../../journal/outbound-marks.ts';
import type { ToolContext, ToolDefinition } from '../kit/tool-definition.ts';
import {
  OUTBOUND_TOOLS,
  type OutboundAction,
  type OutboundFacts,
  outboundActions,
  type ToolCall,
} from './outbound-actions.ts';
import { ceilingRefusal, NO_CEILING, type OutboundCeiling } from './outbound-ceiling.ts';
import type { Person } from './outside-account.ts';

/** How outbound actions are held: the operator's ceiling, and who the person is. */
export interface OutboundPolicy {
  ceiling: OutboundCeiling;
  /** The person the call acts for; undefined when not known (every recipient is then outside). */
  personOf(auth: AuthInfo, signal: AbortSignal): Promise<Person | undefined>;
}

export const UNKNOWN_PERSON_POLICY: OutboundPolicy = { ceiling: NO_CEILING, personOf: async () => undefined };

/** Tools whose outbound actions depend on who the person is (a recipient inside or outside). */
const BY_RECIPIENT = new Set([
  'share_file',
  'update_permission',
  'add_comment',
  'reply_to_comment',
  'resolve_comment',
]);

/**
 * The call's outbound actions, refused with a ToolError when the ceiling forbids one (before
 * Google is asked anything), and marked for the change journal otherwise.
 */
export async function holdOutbound(
  policy: OutboundPolicy,
  call: ToolCall,
  context: Pick<ToolContext, 'auth' | 'signal'>,
  facts?: OutboundFacts,
): Promise<OutboundAction[]> {
  // update_permission's grantee is known only once the tool has read it (facts).
  const byRecipient =
    BY_RECIPIENT.has(call.name) && (call.name !== 'update_permission' || facts !== undefined);
  const person = byRecipient ? await policy.personOf(context.auth, context.signal) : undefined;
  const actions = outboundActions(call, person, facts);
  const refusal = ceilingRefusal(policy.ceiling, actions);
  if (refusal) throw new ToolError(refusal);
  return actions;
}

/**
 * Every tool that can act outbound (OUTBOUND_TOOLS, or one with its own `describeOutbound`) gets
 * `describeOutbound`: the actions outbound-actions.ts finds in its arguments plus the tool's own
 * (what it must read from Google first), held to the ceiling — a ToolError names the first one
 * forbidden, before Google is asked to change anything, for a dry run alike; and
 * `describeOutboundByArguments`, the actions of the arguments alone (no Google request). The
 * consent step (protocol/call-consent.ts) calls them before anything else of the call, so nobody
 * is asked about, or refused by their choice for, a call the operator forbids by its arguments. `run` marks the actions for the
 * change journal; called without `describeOutbound` first (in-process callers), it holds them
 * itself. Wraps the journaling wrapper (journal-writes.ts), so a refused call records nothing.
 *
 * A new kind of outbound action that needs a read of Google (e.g. a write into a spreadsheet
 * owned outside) is a `describeOutbound` on the tool (or on a wrapper inside this one) answering
 * its actions; this guard adds them to the others, holds them to the ceiling and marks them.
 */
export function guardOutbound(tools: ToolDefinition[], policy: OutboundPolicy): ToolDefinition[] {
  return tools.map((tool) => {
    const own = tool.describeOutbound;
    if (!OUTBOUND_TOOLS.has(tool.name) && !own) return tool;
    // What describeOutbound answered for this very input, for `run` to mark without asking again;
    // what its arguments name, for describeOutbound to take after describeOutboundByArguments.
    const said = new WeakMap<object, OutboundAction[]>();
    const named = new WeakMap<object, Promise<OutboundAction[]>>();
    function describeOutboundByArguments(input: unknown, context: ToolContext): Promise<OutboundAction[]> {
      if (!OUTBOUND_TOOLS.has(tool.name)) return Promise.resolve([]);
      const call = { name: tool.name, args: input as Record<string, unknown> };
      if (!input || typeof input !== 'object') return holdOutbound(policy, call, context);
      let found = named.get(input);
      if (!found) {
        found = holdOutbound(policy, call, context);
        named.set(input, found);
      }
      return found;
    }
    async function describeOutbound(input: unknown, context: ToolContext): Promise<OutboundAction[]> {
      const found = await describeOutboundByArguments(input, context);
      if (input && typeof input === 'object') named.delete(input);
      const more = own ? await own.call(tool, input as never, context) : [];
      const refusal = ceilingRefusal(policy.ceiling, more);
      if (refusal) throw new ToolError(refusal);
      const actions = [...found, ...more];
      if (input && typeof input === 'object') said.set(input, actions);
      return actions;
    }
    return {
      ...tool,
      describeOutbound,
      describeOutboundByArguments,
      async run(input, context) {
        let actions = said.get(input);
        if (actions) said.delete(input);
        else actions = await describeOutbound(input, context);
        return runMarkedOutbound(actions, () => tool.run(input, context));
      },
    };
  });
}
