import {
  type AccountServiceClientApi,
  type ChangeUndoServiceServer,
  GRPC_STATUS_OF_KIND,
  kindOfCallError,
  type UndoChangeResponse,
} from '@sheetgate/proto';
import type { Logger } from '@sheetgate/service-runtime';
import { isUuid } from '@sheetgate/service-runtime';
import type { AuthInfo } from '../auth/auth-info.ts';
import { ToolError } from '../errors/tool-error.ts';
import { GoogleReconnectNeeded } from '../google/google-errors.ts';
import { runAsTool } from '../google/tool-attribution.ts';
import { describeToolset } from '../tools/toolsets.ts';
import type { ChangeUndo, UndoOutcome } from './undo-change.ts';

/** A refusal names at most this many cells changed since (undo_change's bound too). */
const NAMED_CELLS = 20;
/** The session cookie's value: auth's are far shorter; anything longer names no session. */
const MAX_COOKIE_LENGTH = 1024;
/** The person on the dashboard acts with both of the resource's scopes, as their own Google account. */
const DASHBOARD_SCOPES: ReadonlySet<string> = new Set(['sheets:read', 'sheets:write']);

class CallRefused extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** The outcome as ChangeUndoService answers it. */
function answerOf(outcome: UndoOutcome): UndoChangeResponse {
  switch (outcome.kind) {
    case 'undone':
      return {
        undone: {
          undoChangeId: outcome.undoId ?? '',
          restored: outcome.restored,
          replacedChangedCells: outcome.changedSince,
          summary: outcome.text,
        },
      };
    case 'changed_since':
      return {
        changedSince: { cells: outcome.cells.slice(0, NAMED_CELLS), total: outcome.cells.length },
      };
    case 'not_found':
      return { notFound: {} };
    case 'already_undone':
      return { notPossible: { message: 'This change was undone already.' } };
    case 'not_undoable':
      return { notPossible: { message: `This change cannot be undone. ${outcome.reason}` } };
    case 'target_gone':
      return { notPossible: { message: outcome.message } };
    // The person on the dashboard enables every set; said all the same should that change.
    case 'toolset_not_enabled':
      return {
        notPossible: {
          message: `Undoing this change needs the toolset ${describeToolset(outcome.toolset)}.`,
        },
      };
  }
}

/**
 * ChangeUndoService (proto/sheetgate/v1/change_undo.proto): the dashboard's Undo, served to web.
 * The person is whoever auth says the session cookie belongs to (AccountService.GetSession), never
 * a user id web could get wrong; the undo is `undo_change`'s own (undo-change.ts), journaled under
 * the dashboard's credential, with the person's Google token and quota turns as a tool call's.
 */
export function changeUndoHandlers(deps: {
  accounts: Pick<AccountServiceClientApi, 'getSession'>;
  /** Undefined when the change journal is off: nothing can be undone. */
  undo: ChangeUndo | undefined;
  logger: Logger;
  /** The longest an undo may run (MCP_REQUEST_TIMEOUT_SECONDS, as a tool call). */
  timeoutMs: number;
}): Pick<ChangeUndoServiceServer, 'undoChange'> {
  const { accounts, undo, logger } = deps;

  async function answer(
    request: { sessionCookie: string; changeId: string; force: boolean },
    signal: AbortSignal,
  ): Promise<UndoChangeResponse> {
    if (!request.sessionCookie || request.sessionCookie.length > MAX_COOKIE_LENGTH)
      throw new CallRefused(GRPC_STATUS_OF_KIND.permission_denied, 'no signed-in session');
    const session = await accounts.getSession({ sessionCookie: request.sessionCookie });
    if (!session.user) throw new CallRefused(GRPC_STATUS_OF_KIND.permission_denied, 'no signed-in session');
    if (!isUuid(request.changeId)) return { notFound: {} };
    if (!undo)
      return {
        notPossible: {
          message: 'The change journal is off on this Sheetgate server: there is nothing to undo.',
        },
      };
    const auth: AuthInfo = { userId: session.user.id, scopes: DASHBOARD_SCOPES, credential: 'dashboard' };
    try {
      const outcome = await runAsTool(
        'undo_change',
        () => {},
        () => undo(auth, signal, { changeId: request.changeId, force: request.force, dryRun: false }),
      );
      logger.info({ outcome: outcome.kind, force: request.force }, 'dashboard undo');
      return answerOf(outcome);
    } catch (error) {
      if (error instanceof GoogleReconnectNeeded) return { googleReconnectNeeded: {} };
      if (error instanceof ToolError) {
        logger.info({ outcome: 'failed' }, 'dashboard undo');
        return { failed: { message: error.message } };
      }
      throw error;
    }
  }

  return {
    undoChange(call, callback) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), deps.timeoutMs);
      call.on('cancelled', () => controller.abort());
      answer(call.request, controller.signal)
        .then(
          (response) => callback(null, response),
          (error: unknown) => {
            if (error instanceof CallRefused) return callback({ code: error.code, details: error.message });
            // Auth (the session, the journal) out of reach: the caller says so and tries later.
            const kind = kindOfCallError(error);
            if (kind === 'unavailable')
              return callback({ code: GRPC_STATUS_OF_KIND.unavailable, details: 'auth is unavailable' });
            logger.error({ err: error }, 'dashboard undo failed');
            callback({ code: GRPC_STATUS_OF_KIND.internal, details: 'internal error' });
          },
        )
        .finally(() => clearTimeout(timer));
    },
  };
}
