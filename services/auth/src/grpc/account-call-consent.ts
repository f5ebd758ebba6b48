import type {
  AccountServiceServer,
  AnswerCallApprovalRequest,
  AnswerCallApprovalResponse,
  CredentialChoices,
  SetApiKeyChoicesRequest,
  SetApiKeyChoicesResponse,
  SetAppChoicesRequest,
  SetAppChoicesResponse,
  ShowCallApprovalRequest,
  ShowCallApprovalResponse,
} from '@sheetgate/proto';
import { type Logger, SheetgateError } from '@sheetgate/service-runtime';
import type { ApiKeyLibrary } from '../api-keys/index.ts';
import type { AppChoices } from '../call-consent/app-choices.ts';
import type { CallApprovals } from '../call-consent/call-approvals.ts';
import type { ConnectedAppsLibrary } from '../connected-apps/connected-apps.ts';
import { apiKeyMessage } from './api-key-message.ts';
import { unaryHandler } from './unary-handler.ts';

function requiredChoices(choices: CredentialChoices | undefined): CredentialChoices {
  if (!choices) throw new SheetgateError('invalid_argument', 'choices are required');
  return { mayActOutbound: choices.mayActOutbound, mayDestroyUnasked: choices.mayDestroyUnasked };
}

const noApproval = () => new SheetgateError('not_found', 'no such call approval');

/**
 * AccountService's calls for the person's say on outbound and destructive calls (docs/design.md
 * §11.10): changing a key's or an app's choices on the dashboard, and the approval page. Each is
 * bound to the signed-in person; another person's key, app or approval is NOT_FOUND, like none.
 */
export function accountCallConsentHandlers(deps: {
  logger: Logger;
  /** The person behind a dashboard session cookie (PERMISSION_DENIED without one). */
  signedIn: (cookie: string) => Promise<{ user: { id: string } }>;
  apiKeys: Pick<ApiKeyLibrary, 'setChoices'>;
  connectedApps: Pick<ConnectedAppsLibrary, 'isConnected'>;
  appChoices: Pick<AppChoices, 'choose'>;
  approvals: Pick<CallApprovals, 'show' | 'answer'>;
}): Pick<
  AccountServiceServer,
  'setApiKeyChoices' | 'setAppChoices' | 'showCallApproval' | 'answerCallApproval'
> {
  const { logger, signedIn } = deps;
  return {
    setApiKeyChoices: unaryHandler<SetApiKeyChoicesRequest, SetApiKeyChoicesResponse>(
      logger,
      'SetApiKeyChoices',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const key = await deps.apiKeys.setChoices(user.id, request.keyId, requiredChoices(request.choices));
        if (!key) throw new SheetgateError('not_found', 'no such live API key');
        return { key: apiKeyMessage(key) };
      },
    ),

    setAppChoices: unaryHandler<SetAppChoicesRequest, SetAppChoicesResponse>(
      logger,
      'SetAppChoices',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const choices = requiredChoices(request.choices);
        if (!(await deps.connectedApps.isConnected(user.id, request.clientId)))
          throw new SheetgateError('not_found', 'no such connected app');
        await deps.appChoices.choose(user.id, request.clientId, choices, 'dashboard');
        return { choices };
      },
    ),

    showCallApproval: unaryHandler<ShowCallApprovalRequest, ShowCallApprovalResponse>(
      logger,
      'ShowCallApproval',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const approval = await deps.approvals.show(request.approvalId, user.id);
        if (!approval) throw noApproval();
        return { approval };
      },
    ),

    answerCallApproval: unaryHandler<AnswerCallApprovalRequest, AnswerCallApprovalResponse>(
      logger,
      'AnswerCallApproval',
      async (request) => {
        const { user } = await signedIn(request.sessionCookie);
        const outcome = await deps.approvals.answer(request.approvalId, user.id, request.approve);
        if (!outcome) throw noApproval();
        return outcome;
      },
    ),
  };
}
