import {
  approvalLinkPath,
  CallApprovalState,
  type CallConsentClient,
  type CallCredential,
  type CredentialChoices,
  GrpcStatus,
  isServiceError,
  kindOfCallError,
} from '@sheetgate/proto';
import type { AuthInfo } from '../auth/auth-info.ts';

/** Where a call approval stands; `gone` is expired, unknown, or never created for this person. */
export type ApprovalStanding = 'pending' | 'approved' | 'declined' | 'gone';

/**
 * What the consent step (call-consent.ts) asks of auth: the person's choices for the credential a
 * call came with, read at each call that needs them (a change on the dashboard holds from the next
 * call, never from a token), and the call approvals of URL-mode elicitation.
 * Each throws `ConsentUnavailable` when auth cannot answer: the call then does not run.
 */
export interface CallConsents {
  choices(auth: AuthInfo, signal: AbortSignal): Promise<CredentialChoices>;
  /** A call approval the person answers on Sheetgate's page, valid for `validForMs`; its id. */
  createApproval(auth: AuthInfo, tool: string, sentence: string, validForMs: number): Promise<string>;
  standing(auth: AuthInfo, approvalId: string): Promise<ApprovalStanding>;
  /** The approval page of `approvalId` (served by web): nothing about the person or the call in it. */
  approvalUrl(approvalId: string): string;
}

/** Auth could not answer (unreachable, overloaded, or an earlier release without the service). */
export class ConsentUnavailable extends Error {}

/** A server without auth to ask: nothing that needs the person's say runs (fail closed). */
export const NO_CALL_CONSENTS: CallConsents = {
  choices: unavailable,
  createApproval: unavailable,
  standing: unavailable,
  approvalUrl: () => {
    throw new ConsentUnavailable('no approval page');
  },
};

async function unavailable(): Promise<never> {
  throw new ConsentUnavailable('no CallConsentService');
}

/**
 * CallConsentService over gRPC (proto/sheetgate/v1/call_consent.proto). The link to an approval is
 * `BASE_URL` + `/approve/<id>.<signature>`, signed with a key derived from INTERNAL_SERVICE_TOKEN
 * so web refuses an altered one before any lookup.
 */
export function grpcCallConsents(
  client: CallConsentClient,
  options: { baseUrl: string; serviceToken: string },
): CallConsents {
  return {
    async choices(auth, signal) {
      const answer = await failClosed(() =>
        client.getCredentialChoices({ credential: credentialOf(auth) }, { signal }),
      );
      // Never answered without choices by a sound auth; read as the defaults' stricter side.
      return answer.choices ?? { mayActOutbound: false, mayDestroyUnasked: false };
    },
    async createApproval(auth, tool, sentence, validForMs) {
      const answer = await failClosed(() =>
        client.createCallApproval({ credential: credentialOf(auth), tool, sentence, validForMs }),
      );
      return answer.approvalId;
    },
    async standing(auth, approvalId) {
      const answer = await failClosed(() => client.getCallApproval({ approvalId, userId: auth.userId }));
      switch (answer.state) {
        case CallApprovalState.CALL_APPROVAL_STATE_PENDING:
          return 'pending';
        case CallApprovalState.CALL_APPROVAL_STATE_APPROVED:
          return 'approved';
        case CallApprovalState.CALL_APPROVAL_STATE_DECLINED:
          return 'declined';
        default:
          return 'gone';
      }
    },
    approvalUrl: (approvalId) => `${options.baseUrl}${approvalLinkPath(options.serviceToken, approvalId)}`,
  };
}

/** The credential as auth keys the choices: an API key by its id, an app by its client for this person. */
function credentialOf(auth: AuthInfo): CallCredential {
  if (auth.credential === 'api_key' && auth.apiKeyId) return { userId: auth.userId, apiKeyId: auth.apiKeyId };
  if (auth.credential === 'access_token' && auth.clientId)
    return { userId: auth.userId, clientId: auth.clientId };
  throw new Error(`a ${auth.credential} credential has no choices to read`);
}

async function failClosed<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // UNIMPLEMENTED: an auth of an earlier release, while a rollout replaces it.
    if (kindOfCallError(error) === 'unavailable' || isServiceError(error, GrpcStatus.UNIMPLEMENTED))
      throw new ConsentUnavailable('auth could not answer', { cause: error });
    throw error;
  }
}
