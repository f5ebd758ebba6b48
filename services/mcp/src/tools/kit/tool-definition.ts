import type { ToolsetName } from '@sheetgate/proto';
import type { z } from 'zod';
import type { AuthInfo } from '../../auth/auth-info.ts';
import { OUTBOUND_TOOLS, type OutboundAction } from '../guards/outbound-actions.ts';
import { changeIdOutput } from './common-schemas.ts';
import { strictInput } from './strict-input.ts';

export type ResourceScope = 'sheets:read' | 'sheets:write';

export interface ToolContext {
  auth: AuthInfo;
  /** Aborted when the client goes away, cancels the request, or the request times out. */
  signal: AbortSignal;
  /**
   * Tells the client how far a long call has got (`notifications/progress`) when its request
   * carried a progressToken; a no-op otherwise. `progress` must grow from call to call; `total`
   * is given when known.
   */
  progress(progress: number, total?: number, message?: string): void;
}

export interface ToolOutput {
  /** Matches the tool's output schema. */
  structuredContent: Record<string, unknown>;
  /** A readable rendering of the same result, for clients that show text. */
  text: string;
}

/** One entry of the tool registry (docs/design.md §11): schema, scope, annotations and behaviour. */
export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  /**
   * The set that enables the tool (docs/design.md §11.5): one of @sheetgate/proto's TOOLSETS, and
   * the folder under sets/ its file is in.
   */
  toolset: ToolsetName;
  title: string;
  description: string;
  scope: ResourceScope;
  /**
   * A write tool that records its own changes in the change journal with what undo needs
   * (docs/design.md §11.8); every other write tool is journaled by journalWrites
   * (kit/journal-writes.ts), which derives undo from its batchUpdate requests.
   */
  journalsItself?: true;
  inputSchema: Input;
  outputSchema: z.ZodObject;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  run(input: z.infer<Input>, context: ToolContext): Promise<ToolOutput>;
  /**
   * Destructive tools only: what this call would destroy, read from Google without changing
   * anything — e.g. `the tab "Q3" (1,200 rows × 26 columns, 4,312 non-empty cells)` — or null when
   * it would destroy nothing (clearing empty cells). Asked before `run` when the client can confirm
   * (MCP 2026-07-28 elicitation through an input_required result); the sentence is shown to the
   * person, who accepts or declines.
   */
  describeLoss?(input: z.infer<Input>, context: ToolContext): Promise<string | null>;
  /**
   * The outbound actions this call would take (docs/design.md §11.10), said before `run` without
   * changing anything: the consent step (protocol/call-consent.ts) refuses, asks about or lets
   * them run by the credential's choice and the client's shape. On a tool as defined: only what
   * Google must be asked first (update_permission reads the grantee; a write into a spreadsheet
   * owned outside reads its owners). guardOutbound (guards/outbound-guard.ts) wraps every tool
   * that has it or is in OUTBOUND_TOOLS with the whole answer — outbound-actions.ts' actions of the
   * arguments plus the tool's own — held to the operator's ceiling (a ToolError when it forbids
   * one), and marks them for the change journal when the call runs.
   */
  describeOutbound?(input: z.infer<Input>, context: ToolContext): Promise<OutboundAction[]>;
  /**
   * Set by guardOutbound only: the part of `describeOutbound`'s answer the arguments alone name (a
   * fetch formula, a link share), held to the ceiling, without asking Google anything. The consent
   * step reads the credential's choice on it first, so a credential that may not act outbound is
   * refused before any Google request (the owners read of a write included).
   */
  describeOutboundByArguments?(input: z.infer<Input>, context: ToolContext): Promise<OutboundAction[]>;
}

/** What an outbound tool's description ends with (guards/outbound-actions.ts names the actions). */
export const OUTBOUND_NOTE = 'Outbound: may need consent.';

/**
 * Keeps the input type of each definition while collecting them in one array, and makes its input
 * schema refuse unknown arguments at every depth (strict-input.ts). `openWorldHint` is true for the
 * tools that can act outbound (OUTBOUND_TOOLS) and false for every other, whatever the definition
 * says, and their descriptions say such an action may need the person's permission. A write tool that does not
 * journal itself answers the `changeId` journalWrites adds (kit/journal-writes.ts): its output
 * schema says so here, the same whether the journal is on or off.
 */
export function defineTool<Input extends z.ZodObject>(definition: ToolDefinition<Input>): ToolDefinition {
  const journaledByWrapper = definition.scope === 'sheets:write' && !definition.journalsItself;
  const outbound = OUTBOUND_TOOLS.has(definition.name);
  return {
    ...definition,
    ...(outbound ? { description: `${definition.description} ${OUTBOUND_NOTE}` } : {}),
    // True exactly for the tools that can send outside the person's account (issue 37).
    annotations: { ...definition.annotations, openWorldHint: outbound },
    inputSchema: strictInput(definition.inputSchema),
    ...(journaledByWrapper
      ? { outputSchema: definition.outputSchema.extend({ changeId: changeIdOutput }) }
      : {}),
  } as unknown as ToolDefinition;
}
