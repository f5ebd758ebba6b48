import { z } from 'zod';
import type { ToolContext, ToolDefinition } from '../tools/kit/tool-definition.ts';
import { JsonRpcErrorCode } from './json-rpc.ts';
import type { RequestStateCodec } from './request-state.ts';
import { RpcFailure } from './rpc-failure.ts';

/** The key of the one input request a confirmation asks (MRTR `inputRequests`). */
export const CONFIRM_KEY = 'confirm';

/** An elicitation answer (MCP ElicitResult); other members are ignored, as MRTR asks. */
const elicitAnswer = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});

export type Confirmation = { proceed: true } | { proceed: false; result: Record<string, unknown> };

/**
 * Confirm before destroying (docs/design.md §15): a destructive tools/call from a client that can
 * elicit is first answered `input_required`, saying exactly what would be lost; the retry carries
 * the person's answer and the signed `requestState`. Nothing is kept here between the two
 * requests; auth records which states were used (request-state-claims.ts).
 * Clients that cannot elicit (every legacy client, modern ones without the capability) are not
 * asked, as before.
 */
export async function confirmDestruction(options: {
  tool: ToolDefinition;
  input: unknown;
  args: unknown;
  params: Record<string, unknown>;
  clientCapabilities: Record<string, unknown> | undefined;
  context: ToolContext;
  states: RequestStateCodec;
}): Promise<Confirmation> {
  const { tool, params, context, states } = options;
  if (!tool.describeLoss || !canElicitForms(options.clientCapabilities)) return { proceed: true };
  // A dry run destroys nothing (docs/design.md §11): it says what would be lost instead of asking.
  if ((options.input as { dryRun?: unknown } | null)?.dryRun === true) return { proceed: true };

  const binding = { auth: context.auth, method: 'tools/call', target: tool.name, args: options.args };
  // A presented state is checked before anything is read from Google for it.
  const check =
    params.requestState === undefined ? undefined : await states.verify(params.requestState, binding);
  if (check && !check.ok && !check.askAgain) {
    throw new RpcFailure(JsonRpcErrorCode.InvalidParams, `requestState refused: ${check.reason}`);
  }
  // The operator's ceiling first: nobody is asked about a call that would be refused.
  await tool.describeOutbound?.(options.input as never, context);
  const loss = await tool.describeLoss(options.input as never, context);
  if (loss === null) return { proceed: true };
  // No state, a lapsed one, or one showing another loss than the call would cause now (the sheet
  // changed meanwhile): the person is asked about what would be lost now.
  if (!check?.ok || !check.wasShown(loss)) return ask(loss, await states.sign(binding, loss));
  const responses = params.inputResponses;
  const raw =
    responses && typeof responses === 'object'
      ? (responses as Record<string, unknown>)[CONFIRM_KEY]
      : undefined;
  // A retry without the answer is asked again (MRTR: missing input is requested, not an error).
  if (raw === undefined) return ask(loss, await states.sign(binding, loss));
  const answer = elicitAnswer.safeParse(raw);
  if (!answer.success) {
    throw new RpcFailure(
      JsonRpcErrorCode.InvalidParams,
      `inputResponses.${CONFIRM_KEY} is not an elicitation result: ${z.prettifyError(answer.error)}`,
    );
  }
  if (answer.data.action === 'accept' && answer.data.content?.confirm === true) {
    // Single use (MRTR): the state is claimed fleet-wide before the call runs, so a replayed
    // retry, on this replica or another, destroys nothing more.
    if (!(await check.claim())) {
      throw new RpcFailure(
        JsonRpcErrorCode.InvalidParams,
        'requestState refused: already used (each confirmation runs its call once; call the tool again without requestState to be asked anew)',
      );
    }
    return { proceed: true };
  }
  return {
    proceed: false,
    result: {
      isError: true,
      content: [{ type: 'text', text: `Nothing was changed: the person did not confirm. ${loss}` }],
    },
  };
}

/** Form-mode elicitation: declared as `elicitation: {}` (form implied) or with `form`. */
function canElicitForms(capabilities: Record<string, unknown> | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return false;
  const modes = elicitation as Record<string, unknown>;
  return modes.form !== undefined || modes.url === undefined;
}

function ask(loss: string, requestState: string): Confirmation {
  return {
    proceed: false,
    result: {
      resultType: 'input_required',
      inputRequests: {
        [CONFIRM_KEY]: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: `${loss} Go ahead?`,
            requestedSchema: {
              type: 'object',
              properties: {
                confirm: {
                  type: 'boolean',
                  title: 'Yes, go ahead',
                  description: 'Tick to confirm; declining leaves everything as it is.',
                  default: false,
                },
              },
              required: ['confirm'],
            },
          },
        },
      },
      requestState,
    },
  };
}
