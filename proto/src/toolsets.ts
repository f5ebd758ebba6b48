/**
 * Toolsets (docs/design.md §11, "Toolsets"): the groups of MCP tools a credential may enable, so
 * `tools/list` costs a conversation only what it uses. The one list of their names: auth validates
 * and stores them, web offers them as checkboxes, the MCP service assigns each tool to one of them
 * (services/mcp/src/tools/toolsets.ts) and filters by them. Order is the order everything shows
 * them in.
 */
export const TOOLSETS = [
  { name: 'core-read', title: 'Reading', description: 'list, open, read and search spreadsheets' },
  { name: 'core-write', title: 'Writing', description: 'write, append and clear cells' },
  {
    name: 'structure',
    title: 'Structure and formatting',
    description: 'add, rename, copy and delete tabs, rows and columns; formats; batch updates',
  },
  {
    name: 'rules',
    title: 'Rules and ranges',
    description:
      'data validation, conditional formatting, named and protected ranges, filters and filter views, tables',
  },
  { name: 'files', title: 'Files', description: 'create, copy and convert spreadsheets; folders' },
  {
    name: 'sharing',
    title: 'Sharing and comments',
    description: 'share the files Sheetgate created and work with their comments',
  },
  { name: 'charts', title: 'Charts', description: 'add, change and remove charts and pivot tables' },
] as const;

export type ToolsetName = (typeof TOOLSETS)[number]['name'];

export const TOOLSET_NAMES: readonly ToolsetName[] = TOOLSETS.map((set) => set.name);

/** What a new key or a new connection enables unless the person chooses otherwise. */
export const DEFAULT_TOOLSETS: readonly ToolsetName[] = ['core-read', 'core-write'];

export function isToolsetName(name: unknown): name is ToolsetName {
  return typeof name === 'string' && (TOOLSET_NAMES as readonly string[]).includes(name);
}

/** The set's entry in TOOLSETS. */
export function toolset(name: ToolsetName): (typeof TOOLSETS)[number] {
  return TOOLSETS.find((set) => set.name === name)!;
}

/**
 * Names in TOOLSETS order without repeats, or undefined when one is not a toolset's name (the
 * caller says why in its own words). An empty list stays empty: whether that is allowed is the
 * caller's rule.
 */
export function canonicalToolsets(names: readonly unknown[]): ToolsetName[] | undefined {
  if (!names.every(isToolsetName)) return undefined;
  return knownToolsets(names);
}

/**
 * The known names among `names`, in TOOLSETS order without repeats; a name this version does not
 * know is dropped (it enables nothing here: a stored choice or a token from a newer release).
 */
export function knownToolsets(names: readonly unknown[]): ToolsetName[] {
  return TOOLSET_NAMES.filter((name) => names.includes(name));
}
