/**
 * Filters (docs/design.md §11): a tab's basic filter and the spreadsheet's filter views, each
 * with a sort and per-column criteria. Each change is one `spreadsheets.batchUpdate`, after one
 * `spreadsheets.get` with a field mask of the tabs and their filters, so that a range, a column or
 * an id is checked before Google sees it.
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { CHANGE, READ } from '../../kit/annotations.ts';
import {
  a1Range,
  dryRun,
  dryRunOutput,
  perTabListInput,
  sheetId,
  spreadsheetId,
} from '../../kit/common-schemas.ts';
import { deleteFound } from '../../kit/delete-found.ts';
import { TAB_PROPERTY_FIELDS } from '../../kit/first-visible-tab.ts';
import { gridRangeOf, type Tab, tabsOf } from '../../kit/rule-grid.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { spreadsheetRead } from '../../kit/spreadsheet-read.ts';
import { listedTabs, type TabRef, tabOf } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import {
  criteriaInput,
  describeFilter,
  type FilterView,
  filterOutput,
  filterSpecsOf,
  filterView,
  sortInput,
  sortSpecsOf,
} from './filter-views.ts';

const FILTER_FIELDS = `sheets(properties(${TAB_PROPERTY_FIELDS}),basicFilter,filterViews),namedRanges(namedRangeId,name,range)`;

const title = z
  .string()
  .max(200)
  .refine((text) => text.trim() !== '', 'a title must not be empty');

const filterViewId = z.number().int().min(0).describe('From list_filters.');

export function filterTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const readSpreadsheet = spreadsheetRead(deps);

  async function readFilters(userId: string, signal: AbortSignal, id: string) {
    const data = await readSpreadsheet(userId, signal, id, FILTER_FIELDS);
    const tabs = tabsOf(data);
    const basic = new Map<number, FilterView>();
    const views: FilterView[] = [];
    for (const sheet of data.sheets ?? []) {
      const id = sheet.properties?.sheetId ?? 0;
      if (sheet.basicFilter) basic.set(id, filterView(sheet.basicFilter, id, tabs));
      for (const view of sheet.filterViews ?? []) views.push(filterView(view, id, tabs));
    }
    return { tabs, basic, views, namedRanges: data.namedRanges ?? [] };
  }
  type Read = Awaited<ReturnType<typeof readFilters>>;

  function viewById(read: Read, id: number): FilterView {
    const found = read.views.find((view) => view.filterViewId === id);
    if (!found) {
      const ids = read.views.map((view) => view.filterViewId).join(', ');
      throw new ToolError(
        `there is no filter view ${id}; the spreadsheet has ${amount(read.views.length, 'filter view')}${ids ? ` (${ids})` : ''}; list_filters lists them`,
      );
    }
    return found;
  }

  function basicOf(read: Read, asked: TabRef): { tab: Tab; filter: FilterView } {
    const tab = tabOf(read.tabs, asked);
    const filter = read.basic.get(tab.sheetId);
    if (!filter) throw new ToolError(`the tab ${JSON.stringify(tab.title)} has no basic filter`);
    return { tab, filter };
  }

  /** The range, sort and criteria of a filter, checked against the tabs. */
  function filterOf(
    read: Read,
    input: { range: string; sort?: z.infer<typeof sortInput>; criteria?: z.infer<typeof criteriaInput> },
  ) {
    const { range, tab } = gridRangeOf(input.range, read.tabs, read.namedRanges);
    const sortSpecs = sortSpecsOf(input.sort, range, tab);
    const filterSpecs = filterSpecsOf(input.criteria, range, tab);
    const filter: sheets_v4.Schema$BasicFilter = {
      range,
      ...(sortSpecs.length ? { sortSpecs } : {}),
      ...(filterSpecs.length ? { filterSpecs } : {}),
    };
    return { filter, tab };
  }

  return [
    defineTool({
      name: 'set_basic_filter',
      toolset: 'rules',
      title: 'Set the basic filter',
      description: "Sets a tab's basic filter, which everyone sees.",
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        sort: sortInput,
        criteria: criteriaInput,
        dryRun,
      }),
      outputSchema: filterOutput.extend({ replaced: filterOutput.nullable(), dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const { filter, tab } = filterOf(read, input);
        const view = filterView(filter, tab.sheetId, read.tabs);
        const replaced = read.basic.get(tab.sheetId) ?? null;
        const what = `the basic filter of the tab ${JSON.stringify(tab.title)} ${describeFilter(view)}${replaced ? ` (replacing the one ${describeFilter(replaced)})` : ''}`;
        if (input.dryRun)
          return {
            structuredContent: { ...view, replaced, dryRun: true },
            text: `Dry run: would set ${what}. Nothing was changed.`,
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [{ setBasicFilter: { filter } }]);
        return { structuredContent: { ...view, replaced }, text: `Set ${what}.` };
      },
    }),

    defineTool({
      name: 'clear_basic_filter',
      toolset: 'rules',
      title: 'Clear the basic filter',
      description: "Removes a tab's basic filter.",
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, sheetId, dryRun }),
      outputSchema: z.object({ cleared: filterOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const { tab, filter } = basicOf(read, input.sheetId);
        const what = `the basic filter of the tab ${JSON.stringify(tab.title)} (${describeFilter(filter)})`;
        if (input.dryRun)
          return {
            structuredContent: { cleared: filter, dryRun: true },
            text: `Dry run: would clear ${what}. Nothing was changed.`,
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { clearBasicFilter: { sheetId: tab.sheetId } },
        ]);
        return { structuredContent: { cleared: filter }, text: `Cleared ${what}.` };
      },
      async describeLoss(input, { auth, signal }) {
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const { tab, filter } = basicOf(read, input.sheetId);
        return `the basic filter of the tab ${quotedName(tab.title)} (on ${quotedName(filter.range)}, ${amount(filter.criteria.length, 'column criterion', 'column criteria')})`;
      },
    }),

    defineTool({
      name: 'list_filters',
      toolset: 'rules',
      title: 'List filters',
      description: 'Lists the basic filters and filter views (with filterViewId).',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: perTabListInput('filters'),
      outputSchema: z.object({ basicFilters: z.array(filterOutput), filterViews: z.array(filterOutput) }),
      async run(input, { auth, signal }) {
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const listed = listedTabs(read.tabs, input.sheetId);
        const mine = (view: FilterView) => listed(view.sheetId);
        const basicFilters = [...read.basic.values()].filter(mine);
        const filterViews = read.views.filter(mine);
        const lines = [
          ...basicFilters.map((each) => `Basic filter ${describeFilter(each)}`),
          ...filterViews.map((each) => `Filter view ${each.filterViewId}: ${describeFilter(each)}`),
        ];
        return {
          structuredContent: { basicFilters, filterViews },
          text: lines.length ? lines.join('\n') : 'No filters or filter views.',
        };
      },
    }),

    defineTool({
      name: 'add_filter_view',
      toolset: 'rules',
      title: 'Add a filter view',
      description: 'Saves a filter view, which changes nothing others see.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        title,
        range: a1Range,
        sort: sortInput,
        criteria: criteriaInput,
        dryRun,
      }),
      outputSchema: filterOutput.extend({ dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const { filter, tab } = filterOf(read, input);
        const view = { ...filterView(filter, tab.sheetId, read.tabs), title: input.title };
        if (input.dryRun)
          return {
            structuredContent: { ...view, dryRun: true },
            text: `Dry run: would add the filter view ${describeFilter(view)}. Nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { addFilterView: { filter: { ...filter, title: input.title } } },
        ]);
        const added = {
          ...view,
          filterViewId: reply.replies?.[0]?.addFilterView?.filter?.filterViewId ?? null,
        };
        return {
          structuredContent: added,
          text: `Added the filter view ${describeFilter(added)} (filterViewId ${added.filterViewId}).`,
        };
      },
    }),

    defineTool({
      name: 'update_filter_view',
      toolset: 'rules',
      title: 'Change a filter view',
      description: 'Changes a filter view: what is given replaces the old.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        filterViewId,
        title: title.optional(),
        range: a1Range.optional(),
        sort: sortInput,
        criteria: criteriaInput,
        dryRun,
      }),
      outputSchema: filterOutput.extend({ previous: filterOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const changes = (['title', 'range', 'sort', 'criteria'] as const).filter(
          (key) => input[key] !== undefined,
        );
        if (changes.length === 0) throw new ToolError('give a new title, range, sort or criteria');
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const previous = viewById(read, input.filterViewId);
        // Criteria and sort kept from before must still fit a new range.
        const { filter, tab } = filterOf(read, {
          range: input.range ?? previous.range,
          sort: input.sort ?? previous.sort.map((each) => ({ ...each, order: each.order as 'ASCENDING' })),
          criteria:
            input.criteria ??
            previous.criteria.map((each) => ({
              column: each.column,
              hiddenValues: each.hiddenValues,
              ...(each.condition ? { condition: each.condition as 'BLANK' } : {}),
              values: each.values,
            })),
        });
        if (tab.sheetId !== previous.sheetId)
          throw new ToolError('a filter view stays on its tab: give a range on the same tab');
        const view = { ...filterView(filter, tab.sheetId, read.tabs), title: input.title ?? previous.title };
        view.filterViewId = previous.filterViewId;
        const change = `the filter view ${previous.filterViewId} (${describeFilter(previous)}) → ${describeFilter(view)}`;
        if (input.dryRun)
          return {
            structuredContent: { ...view, previous, dryRun: true },
            text: `Dry run: would change ${change}. Nothing was changed.`,
          };
        const fields = {
          title: 'title',
          range: 'range',
          sort: 'sortSpecs',
          criteria: 'filterSpecs',
        } as const;
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            updateFilterView: {
              filter: { ...filter, filterViewId: input.filterViewId, title: view.title },
              fields: changes.map((key) => fields[key]).join(','),
            },
          },
        ]);
        return { structuredContent: { ...view, previous }, text: `Changed ${change}.` };
      },
    }),

    defineTool({
      name: 'delete_filter_view',
      toolset: 'rules',
      title: 'Delete a filter view',
      description: 'Deletes a filter view.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, filterViewId, dryRun }),
      outputSchema: z.object({ deleted: filterOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const deleted = viewById(read, input.filterViewId);
        return deleteFound(batchUpdate, { auth, signal }, input, {
          deleted,
          request: { deleteFilterView: { filterId: input.filterViewId } },
          would: `delete the filter view ${describeFilter(deleted)}`,
          did: `Deleted the filter view ${describeFilter(deleted)}.`,
        });
      },
      async describeLoss(input, { auth, signal }) {
        const read = await readFilters(auth.userId, signal, input.spreadsheetId);
        const view = viewById(read, input.filterViewId);
        // The title and the tab's name are written by anyone the file is shared with: quoted and escaped.
        return `the filter view ${quotedName(view.title ?? '')} (on ${quotedName(view.range)})`;
      },
    }),
  ];
}
