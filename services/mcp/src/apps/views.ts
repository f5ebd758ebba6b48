/**
 * The MCP Apps views (docs/design.md §11.11): one entry per view, the one place that says which
 * tools show it. Each view's sources are services/mcp/views/<name>/ and its HTML, made by
 * `pnpm views:gen`, is services/mcp/src/apps/gen/<name>.html, served as the resource
 * `ui://sheetgate/<name>` to clients that declared the extension.
 */
export interface ViewDefinition {
  /** The folder of its sources and the last part of its URI: lowercase letters and dashes. */
  name: string;
  /** The resource's name and title in resources/list, and the HTML document's title. */
  title: string;
  description: string;
  /** The tools whose results it shows: their tools/list entries carry `_meta.ui.resourceUri`. */
  tools: readonly string[];
  /**
   * Tools only the view calls (an Undo button's): listed with `visibility: ["app"]` to clients
   * that declared the extension, which keep them from the model, and neither listed nor callable
   * for any other client. Each is a registered tool and is judged like any call (scope, toolset,
   * the consent step).
   */
  appOnlyTools?: readonly string[];
}

export const SHEETGATE_VIEWS: readonly ViewDefinition[] = [
  {
    name: 'range',
    title: 'Range',
    description:
      'A page of a range as a small sheet: column letters and row numbers, formula and error cells marked, paging with read_range.',
    tools: ['read_range'],
  },
  {
    name: 'chart',
    title: 'Chart',
    description:
      'The chart add_chart or update_chart made, drawn from its type, ranges, legend and titles with the cells read_ranges reads; its data as a table too.',
    tools: ['add_chart', 'update_chart'],
  },
  {
    name: 'change',
    title: 'Change',
    description:
      "A change's cells before and now side by side, the altered ones marked, with Undo (undo_change); a destructive dry run's cells that would be lost.",
    tools: ['list_changes', 'undo_change', 'clear_range', 'delete_dimension', 'delete_sheet', 'batch_update'],
    appOnlyTools: ['read_change_cells'],
  },
];

const VIEW_URI_PREFIX = 'ui://sheetgate/';

export function viewUri(view: Pick<ViewDefinition, 'name'>): string {
  return `${VIEW_URI_PREFIX}${view.name}`;
}

/**
 * How a tool shows in tools/list to a client that declared the extension: its view's URI, and for
 * an app-only tool its visibility.
 */
export interface ToolView {
  resourceUri: string;
  appOnly: boolean;
}

/**
 * Each tool's view, checked against the registered tools: a view naming a tool that is not
 * registered, or a tool shown by two views, stops the service at start (and fails views.test.ts).
 */
export function toolViews(
  views: readonly ViewDefinition[],
  registered: ReadonlySet<string>,
): ReadonlyMap<string, ToolView> {
  const found = new Map<string, ToolView>();
  for (const view of views) {
    if (!/^[a-z][a-z-]*$/.test(view.name)) throw new Error(`view name ${view.name} is not lowercase-dashed`);
    const entries = [
      ...view.tools.map((tool) => [tool, false] as const),
      ...(view.appOnlyTools ?? []).map((tool) => [tool, true] as const),
    ];
    for (const [tool, appOnly] of entries) {
      if (!registered.has(tool))
        throw new Error(`view ${view.name} names ${tool}, which is not a registered tool`);
      if (found.has(tool)) throw new Error(`tool ${tool} is shown by two views`);
      found.set(tool, { resourceUri: viewUri(view), appOnly });
    }
  }
  return found;
}
