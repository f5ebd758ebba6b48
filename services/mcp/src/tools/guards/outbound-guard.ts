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
 * Every tool that can act outbound (OUTBOUND_TOOLS), held to the policy before it runs — and
 * before a destructive one asks the person to confirm, so nobody is asked about a call that would
 * be refused. A dry run is refused alike. Wraps the journaling wrapper (journal-writes.ts), so a
 * refused call reads and records nothing.
 */
export function guardOutbound(tools: ToolDefinition[], policy: OutboundPolicy): ToolDefinition[] {
  return tools.map((tool) => {
    if (!OUTBOUND_TOOLS.has(tool.name)) return tool;
    const hold = (input: unknown, context: ToolContext) =>
      holdOutbound(policy, { name: tool.name, args: input as Record<string, unknown> }, context);
    return {
      ...tool,
      async run(input, context) {
        const actions = await hold(input, context);
        return runMarkedOutbound(actions, () => tool.run(input, context));
      },
      ...(tool.describeLoss
        ? {
            async describeLoss(input, context) {
              await hold(input, context);
              return tool.describeLoss!(input, context);
            },
          }
        : {}),
    };
  });
}
