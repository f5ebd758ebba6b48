import { z } from 'zod';
import { JsonRpcErrorCode } from './json-rpc.ts';
import { RpcFailure } from './rpc-failure.ts';

/**
 * The input requests of the consent step (call-consent.ts), MRTR style (MCP 2026-07-28): one
 * `elicitation/create` under a key of `inputRequests`, answered in the retry's `inputResponses`
 * under the same key, with the signed `requestState` (request-state.ts).
 */

/** The key of a form question (confirm: true runs the call). */
export const CONFIRM_KEY = 'confirm';
/** The key of a URL-mode elicitation: the person approves or declines on Sheetgate's page. */
export const APPROVE_KEY = 'approve';

/** An elicitation answer (MCP ElicitResult); other members are ignored, as MRTR asks. */
const elicitAnswer = z.object({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.unknown()).optional(),
});

export type ElicitAnswer = z.infer<typeof elicitAnswer>;

/** What the consent step decided: run the call, or answer `result` instead. */
export type Consent = { proceed: true } | { proceed: false; result: Record<string, unknown> };

/** The answer under `key` of the retry's `inputResponses`; undefined when it carries none. */
export function answerOf(params: Record<string, unknown>, key: string): ElicitAnswer | undefined {
  const responses = params.inputResponses;
  const raw =
    responses && typeof responses === 'object' ? (responses as Record<string, unknown>)[key] : undefined;
  if (raw === undefined) return undefined;
  const answer = elicitAnswer.safeParse(raw);
  if (!answer.success) {
    throw new RpcFailure(
      JsonRpcErrorCode.InvalidParams,
      `inputResponses.${key} is not an elicitation result: ${z.prettifyError(answer.error)}`,
    );
  }
  return answer.data;
}

/** Whether a form answer confirms: `accept` with `confirm: true`; anything else leaves all as it is. */
export function confirms(answer: ElicitAnswer): boolean {
  return answer.action === 'accept' && answer.content?.confirm === true;
}

/** Form mode: the sentence and a yes/no the person ticks. */
export function askByForm(sentence: string, requestState: string): Consent {
  return inputRequired(
    CONFIRM_KEY,
    {
      mode: 'form',
      message: `${sentence} Go ahead?`,
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
    requestState,
  );
}

/**
 * URL mode: the person opens Sheetgate's approval page (signed in as themselves) and answers there;
 * the client retries once they are done. `elicitationId` is the approval's id, as the link carries it.
 */
export function askByUrl(
  sentence: string,
  approval: { id: string; url: string },
  requestState: string,
): Consent {
  return inputRequired(
    APPROVE_KEY,
    {
      mode: 'url',
      message: `${sentence} Approve or decline it on Sheetgate's page (signed in as yourself), then continue.`,
      url: approval.url,
      elicitationId: approval.id,
    },
    requestState,
  );
}

function inputRequired(key: string, params: Record<string, unknown>, requestState: string): Consent {
  return {
    proceed: false,
    result: {
      resultType: 'input_required',
      inputRequests: { [key]: { method: 'elicitation/create', params } },
      requestState,
    },
  };
}

/** A tool error the model reads (isError), for a call that did not run. */
export function refused(text: string): Consent {
  return { proceed: false, result: { isError: true, content: [{ type: 'text', text }] } };
}

/** The claimed state's call runs; a state claimed before is refused, as a replay. */
export async function claimOrRefuse(claim: () => Promise<boolean>): Promise<Consent> {
  // Single use (MRTR): the state is claimed fleet-wide before the call runs, so a replayed
  // retry, on this replica or another, does nothing more.
  if (!(await claim())) {
    throw new RpcFailure(
      JsonRpcErrorCode.InvalidParams,
      'requestState refused: already used (each confirmation runs its call once; call the tool again without requestState to be asked anew)',
    );
  }
  return { proceed: true };
}
