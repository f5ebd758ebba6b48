import type { ToolsetName } from '@sheetgate/proto';
import type { HttpError } from '@sheetgate/service-runtime';
import type { AuthInfo } from '../auth/auth-info.ts';
import { insufficientScope } from '../auth/authenticate-request.ts';
import type { ResourceScope } from '../tools/kit/tool-definition.ts';
import { describeToolset, enablesToolset, notEnabledClause } from '../tools/toolsets.ts';
import { JsonRpcErrorCode } from './json-rpc.ts';
import { RpcFailure } from './rpc-failure.ts';

/** Whether a credential may call a tool, and if not, the answer that says why. */
export type CallVerdict =
  | { may: true }
  /** The credential lacks the tool's scope: the whole HTTP request is refused, 403 (step-up). */
  | { may: false; refusal: 'scope'; answer: HttpError }
  /** The tool's toolset is not the credential's: this call is answered -32602, as an unknown tool. */
  | { may: false; refusal: 'toolset'; answer: RpcFailure };

const MAY: CallVerdict = { may: true };

/**
 * The one step that decides whether a `tools/call` may run (docs/design.md §8, §11.5): the tool's
 * scope, then its toolset. Every path asks it before its calls run — a single call of either era
 * and each call of a 2025-03-26 batch — so the answers cannot drift apart between them.
 */
export function judgeToolCall(
  auth: AuthInfo,
  tool: { name: string; scope: ResourceScope; toolset: ToolsetName },
  where: { baseUrl: string; resourceMetadataUrl: string },
): CallVerdict {
  if (!auth.scopes.has(tool.scope)) {
    return {
      may: false,
      refusal: 'scope',
      answer: insufficientScope(auth, tool.scope, where.resourceMetadataUrl),
    };
  }
  if (!enablesToolset(auth, tool.toolset)) {
    // Like an unknown tool, for this credential: a client lists again and finds it absent.
    return {
      may: false,
      refusal: 'toolset',
      answer: new RpcFailure(
        JsonRpcErrorCode.InvalidParams,
        `tool ${JSON.stringify(tool.name)} is in the toolset ${describeToolset(tool.toolset)}, ${notEnabledClause(auth.credential, `${where.baseUrl}/dashboard`)}`,
      ),
    };
  }
  return MAY;
}
