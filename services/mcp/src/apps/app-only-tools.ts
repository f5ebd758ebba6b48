import type { ToolDefinition } from '../tools/kit/tool-definition.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';
import { changeCellsTools } from '../tools/sets/core-read/change-cells.ts';

/**
 * The tools only views call (docs/design.md §11.11; views.ts `appOnlyTools`): served beside the
 * registry's, judged like any call (scope, toolset, the consent step), but kept out of it — the
 * registry is what a model may be shown (tools/list to a client without MCP Apps, docs/tools.md,
 * the tool surface and its budget), and these are listed to no model: only, with visibility
 * ["app"], to a host that declared the extension, whose views call them.
 */
export function appOnlyTools(deps: ToolDeps): ToolDefinition[] {
  return [...changeCellsTools(deps)];
}
