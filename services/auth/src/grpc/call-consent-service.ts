import type {
  CallConsentServiceServer,
  CreateCallApprovalRequest,
  CreateCallApprovalResponse,
  GetCallApprovalRequest,
  GetCallApprovalResponse,
  GetCredentialChoicesRequest,
  GetCredentialChoicesResponse,
} from '@sheetgate/proto';
import { type Logger, SheetgateError } from '@sheetgate/service-runtime';
import type { ApiKeyLibrary } from '../api-keys/index.ts';
import type { AppChoices } from '../call-consent/app-choices.ts';
import type { CallApprovals } from '../call-consent/call-approvals.ts';
import { checkedCallApprovalInput, checkedCredential } from '../call-consent/call-consent-input.ts';
import { unaryHandler } from './unary-handler.ts';

/**
 * gRPC CallConsentService (the MCP service's): a credential's choices, read on each call that
 * needs them, and the calls the person approves on the approval page (docs/design.md §11.10).
 */
export function callConsentHandlers(deps: {
  logger: Logger;
  apiKeys: Pick<ApiKeyLibrary, 'liveChoices'>;
  appChoices: Pick<AppChoices, 'chosen'>;
  approvals: Pick<CallApprovals, 'create' | 'state'>;
}): Partial<CallConsentServiceServer> {
  const { logger } = deps;
  return {
    getCredentialChoices: unaryHandler<GetCredentialChoicesRequest, GetCredentialChoicesResponse>(
      logger,
      'GetCredentialChoices',
      async (request) => {
        const credential = checkedCredential(request.credential);
        if (credential.kind === 'app')
          return { choices: await deps.appChoices.chosen(credential.userId, credential.clientId) };
        const choices = await deps.apiKeys.liveChoices(credential.userId, credential.apiKeyId);
        if (!choices) throw new SheetgateError('not_found', 'no such live API key of this user');
        return { choices };
      },
    ),

    createCallApproval: unaryHandler<CreateCallApprovalRequest, CreateCallApprovalResponse>(
      logger,
      'CreateCallApproval',
      async (request) => {
        const credential = checkedCredential(request.credential);
        const input = checkedCallApprovalInput(request);
        const approvalId = await deps.approvals.create(credential, input);
        if (!approvalId)
          throw new SheetgateError('not_found', 'no such user, or no such live API key of theirs');
        return { approvalId };
      },
    ),

    getCallApproval: unaryHandler<GetCallApprovalRequest, GetCallApprovalResponse>(
      logger,
      'GetCallApproval',
      async (request) => ({ state: await deps.approvals.state(request.approvalId, request.userId) }),
    ),
  };
}
