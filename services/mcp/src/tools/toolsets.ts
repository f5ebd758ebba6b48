import { TOOLSET_NAMES, TOOLSETS, type ToolsetName, toolset } from '@sheetgate/proto';
import type { AuthInfo } from '../auth/auth-info.ts';
import type { ToolDefinition } from './kit/tool-definition.ts';

/**
 * The tools of each set and the set of each tool, from the definitions (each names its own set,
 * docs/design.md §11.5); throws on a set that is none of @sheetgate/proto's TOOLSETS.
 */
export function toolsetIndex(tools: readonly ToolDefinition[]): {
  setOf: ReadonlyMap<string, ToolsetName>;
  toolsIn: ReadonlyMap<ToolsetName, readonly ToolDefinition[]>;
} {
  const setOf = new Map<string, ToolsetName>();
  const toolsIn = new Map<ToolsetName, ToolDefinition[]>(TOOLSET_NAMES.map((name) => [name, []]));
  for (const tool of tools) {
    const name = tool.toolset;
    const members = toolsIn.get(name);
    if (!members) {
      const known = TOOLSETS.map((set) => set.name).join(', ');
      throw new Error(`tool ${tool.name} has no toolset: its definition names ${name}, not one of ${known}`);
    }
    setOf.set(tool.name, name);
    members.push(tool);
  }
  return { setOf, toolsIn };
}

/**
 * The credential's toolsets as a cache key: known names in TOOLSETS order, space-separated
 * (undefined, every set). Unknown names enable nothing, so there are at most 2^n distinct keys.
 */
export function toolsetKey(toolsets: readonly string[] | undefined): string {
  if (toolsets === undefined) return ALL_TOOLSETS_KEY;
  let key = '';
  for (const name of TOOLSET_NAMES) if (toolsets.includes(name)) key = key ? `${key} ${name}` : name;
  return key;
}

export const ALL_TOOLSETS_KEY = TOOLSET_NAMES.join(' ');

/** A set's name and title, as a refusal names it: `"structure" (Structure and formatting)`. */
export function describeToolset(name: ToolsetName): string {
  return `"${name}" (${toolset(name).title})`;
}

/** Whether the credential enables the set: one that names no sets enables every set. */
export function enablesToolset(auth: Pick<AuthInfo, 'toolsets'>, set: ToolsetName): boolean {
  return auth.toolsets === undefined || auth.toolsets.includes(set);
}

/**
 * The end of a refusal for something outside the credential's sets, in the words tools/call uses
 * for a tool outside them (mcp-server.ts): `which this API key does not enable; to use it, create
 * an API key with it at <BASE_URL>/dashboard`. A tool whose call carries work of another set
 * (undo_change, batch_update) says it this way too, so a call may do only what its credential's
 * sets allow whichever tool carries it.
 */
export function notEnabledClause(
  credential: AuthInfo['credential'],
  dashboardUrl: string | undefined,
): string {
  const dashboard = dashboardUrl ?? 'the Sheetgate dashboard';
  const where =
    credential === 'api_key'
      ? `create an API key with it at ${dashboard}`
      : `disconnect the app at ${dashboard}, connect it again and check the set on the consent screen`;
  return `which this ${credential === 'api_key' ? 'API key' : 'connection'} does not enable; to use it, ${where}`;
}
