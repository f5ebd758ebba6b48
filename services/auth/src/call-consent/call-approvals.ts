import { randomBytes } from 'node:crypto';
import type { CallApproval, CallApprovalState } from '@sheetgate/proto';
import { isUuid } from '@sheetgate/service-runtime';
import type { AuditLog } from '../audit/index.ts';
import type { DatabasePool } from '../db/pool.ts';
import { type CallApprovalRow, createCallApprovalQueries } from './call-approval-queries.ts';
import { APPROVAL_ID, type CallApprovalInput, type CheckedCredential } from './call-consent-input.ts';

/** How long an approval is kept after it expires: a link opened late still says "expired". */
export const KEPT_AFTER_EXPIRY_MS = 60 * 60 * 1000;

const STATE_OF_ROW: Record<CallApprovalRow['state'], CallApprovalState> = {
  pending: 'CALL_APPROVAL_STATE_PENDING',
  approved: 'CALL_APPROVAL_STATE_APPROVED',
  declined: 'CALL_APPROVAL_STATE_DECLINED',
  expired: 'CALL_APPROVAL_STATE_EXPIRED',
};

/** Anything that could not be an approval of this user's is looked up nowhere. */
const mayBeApproval = (approvalId: string, userId: string) => APPROVAL_ID.test(approvalId) && isUuid(userId);

/**
 * Calls waiting for the person's answer on the approval page (URL-mode elicitation,
 * docs/design.md §11.10), table `call_approvals`: the MCP service creates one and reads its state;
 * the person, signed in to the dashboard, sees and answers it once. Only the user it was created
 * for finds it; for anyone else it does not exist.
 */
export function createCallApprovals(deps: {
  pool: DatabasePool;
  audit: AuditLog;
  /** An OAuth client's registered name, as the provider stored it; undefined when not stored. */
  clientName: (clientId: string) => Promise<string | undefined>;
}) {
  const queries = createCallApprovalQueries(deps.pool);

  async function toMessage(row: CallApprovalRow): Promise<CallApproval> {
    const label = row.apiKeyId
      ? (row.keyName ?? '')
      : ((await deps.clientName(row.clientId!)) ?? row.clientId!);
    return {
      approvalId: row.id,
      state: STATE_OF_ROW[row.state],
      tool: row.tool,
      sentence: row.sentence,
      credentialLabel: label,
      credentialKind: row.apiKeyId ? 'api_key' : 'app',
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      answeredAt: row.answeredAt?.toISOString() ?? '',
    };
  }

  return {
    /**
     * Records a pending approval; its id, or undefined when the user does not exist or the API
     * key is not the user's live key (the page would otherwise name another person's key).
     */
    async create(credential: CheckedCredential, input: CallApprovalInput): Promise<string | undefined> {
      const id = randomBytes(16).toString('base64url');
      const recorded = await queries.insert({
        id,
        userId: credential.userId,
        apiKeyId: credential.kind === 'api_key' ? credential.apiKeyId : null,
        clientId: credential.kind === 'app' ? credential.clientId : null,
        ...input,
      });
      return recorded ? id : undefined;
    },

    /** Where the user's approval stands; UNKNOWN for an unknown, malformed or another user's id. */
    async state(approvalId: string, userId: string): Promise<CallApprovalState> {
      if (!mayBeApproval(approvalId, userId)) return 'CALL_APPROVAL_STATE_UNKNOWN';
      const state = await queries.state(approvalId, userId);
      return state ? STATE_OF_ROW[state] : 'CALL_APPROVAL_STATE_UNKNOWN';
    },

    /** The user's approval as the page shows it; undefined for anyone else's, or none. */
    async show(approvalId: string, userId: string): Promise<CallApproval | undefined> {
      if (!mayBeApproval(approvalId, userId)) return undefined;
      const row = await queries.find(approvalId, userId);
      return row ? toMessage(row) : undefined;
    },

    /**
     * The user's answer: recorded when the approval is pending and unexpired (the first answer
     * wins), audited; `answered` false otherwise. Undefined when the user has no such approval.
     */
    async answer(
      approvalId: string,
      userId: string,
      approve: boolean,
    ): Promise<{ answered: boolean; approval: CallApproval } | undefined> {
      if (!mayBeApproval(approvalId, userId)) return undefined;
      const answered = await queries.answer(approvalId, userId, approve ? 'approved' : 'declined');
      const row = await queries.find(approvalId, userId);
      if (!row) return undefined;
      if (answered) {
        await deps.audit.record('call_approval.answered', {
          userId,
          details: {
            approvalId,
            tool: row.tool,
            answer: row.state,
            ...(row.apiKeyId ? { keyId: row.apiKeyId } : { clientId: row.clientId }),
          },
        });
      }
      return { answered, approval: await toMessage(row) };
    },

    /** Forgets approvals that expired over KEPT_AFTER_EXPIRY_MS ago (the background sweep). */
    sweep(): Promise<number> {
      return queries.deleteExpired(KEPT_AFTER_EXPIRY_MS);
    },
  };
}

export type CallApprovals = ReturnType<typeof createCallApprovals>;
