import type { ToolDeps } from '../../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../../src/tools/registry.ts';

/**
 * How many tools `tools/list` shows a credential with every set: the registry's own count (built
 * with clients that are never called), so that a test pins "every registered tool is listed"
 * rather than a number each new tool must edit.
 */
export const REGISTERED_TOOL_COUNT = sheetgateTools({} as ToolDeps).length;
