/**
 * Charts (docs/design.md §11): column, bar, line, area, pie and scatter charts of a domain column
 * (the labels, a scatter chart's x values) and series columns, given as a block, chosen columns or
 * ranges (chart-data.ts), over a tab at an anchor cell or alone on a sheet of their own. Each reads
 * the tabs and their charts in one `spreadsheets.get` with a field mask (and, for new data, its
 * values in one read, so that an empty range or a series without numbers is refused before Google
 * draws an empty chart), then sends one `spreadsheets.batchUpdate`.
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { splitRange } from '../../kit/a1.ts';
import { CHANGE, READ } from '../../kit/annotations.ts';
import { dryRun, dryRunOutput, perTabListInput, spreadsheetId } from '../../kit/common-schemas.ts';
import { deleteFound } from '../../kit/delete-found.ts';
import { firstVisibleTab, TAB_PROPERTY_FIELDS } from '../../kit/first-visible-tab.ts';
import { a1Of, gridRangeOf, type Tab, tabById, tabsOf } from '../../kit/rule-grid.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { spreadsheetRead } from '../../kit/spreadsheet-read.ts';
import { listedTabs } from '../../kit/tab-ref.ts';
import { defineTool, type ToolContext } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { type ChartDataRequest, chartDataInput, chartDataOf, checkDataRequest } from './chart-data.ts';
import {
  CHART_TYPES,
  type ChartShape,
  type ChartView,
  chartView,
  LEGEND_POSITIONS,
  STACKABLE,
  shapeOf,
  specOf,
} from './chart-spec.ts';

/** Google's size of an overlaid chart when none is given. */
const DEFAULT_SIZE = { width: 600, height: 371 };

const CHARTS_FIELDS = `sheets(properties(sheetType,${TAB_PROPERTY_FIELDS}),charts(chartId,spec,position)),namedRanges(namedRangeId,name,range)`;

const chartId = z.number().int().min(0);
const chartTitle = z.string().max(500);
const axisTitle = z.string().max(200);
const pixels = z.number().int().min(50).max(5000);

const placementInput = {
  anchorCell: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe('Its top-left cell; right of the data by default.'),
  width: pixels.optional(),
  height: pixels.optional(),
  newSheet: z.boolean().optional().describe('On a sheet of its own.'),
};

const chartOutput = z.object({
  chartId: z.number().nullable(),
  type: z.string(),
  title: z.string().nullable(),
  sheetId: z.number().nullable(),
  tab: z.string().nullable(),
  ownSheet: z.boolean(),
  anchorCell: z.string().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  domain: z.string().nullable(),
  series: z.array(z.string()),
  legendPosition: z.string().nullable(),
  xAxisTitle: z.string().nullable(),
  yAxisTitle: z.string().nullable(),
  stacked: z.boolean(),
});

interface PlacedChart {
  chart: sheets_v4.Schema$EmbeddedChart;
  sheet: { sheetId: number; title: string; isObject: boolean };
}

interface ChartsRead {
  tabs: Tab[];
  /** The ids of the sheets of type OBJECT (a chart's own), which have no cells. */
  objectSheets: Set<number>;
  namedRanges: sheets_v4.Schema$NamedRange[];
  charts: PlacedChart[];
}

type Placement = {
  anchorCell?: string | undefined;
  width?: number | undefined;
  height?: number | undefined;
  newSheet?: boolean | undefined;
};

export function chartTools(deps: ToolDeps) {
  const { sheets, callGoogle } = deps;
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const readSpreadsheet = spreadsheetRead(deps);

  async function readCharts(userId: string, signal: AbortSignal, id: string): Promise<ChartsRead> {
    const data = await readSpreadsheet(userId, signal, id, CHARTS_FIELDS);
    const objectSheets = new Set(
      (data.sheets ?? [])
        .filter((sheet) => sheet.properties?.sheetType === 'OBJECT')
        .map((sheet) => sheet.properties?.sheetId ?? 0),
    );
    const charts = (data.sheets ?? []).flatMap((sheet) =>
      (sheet.charts ?? []).map((chart) => ({
        chart,
        sheet: {
          sheetId: sheet.properties?.sheetId ?? 0,
          title: sheet.properties?.title ?? '',
          isObject: objectSheets.has(sheet.properties?.sheetId ?? 0),
        },
      })),
    );
    return { tabs: tabsOf(data), objectSheets, namedRanges: data.namedRanges ?? [], charts };
  }

  function chartCalled(read: ChartsRead, id: number): PlacedChart {
    const found = read.charts.find((each) => each.chart.chartId === id);
    if (!found) {
      const ids = read.charts.map((each) => each.chart.chartId);
      throw new ToolError(
        `there is no chart ${id}; the spreadsheet has ${amount(ids.length, 'chart')}${ids.length ? ` (${ids.join(', ')})` : ''}; list_charts lists them`,
      );
    }
    return found;
  }

  const viewOf = (read: ChartsRead, placed: PlacedChart) => chartView(placed.chart, placed.sheet, read.tabs);

  /** A range on a tab with cells, as a GridRange; a chart's own sheet has none. */
  function cellsOf(read: ChartsRead, range: string, what: string) {
    const { sheetTitle } = splitRange(range);
    const tab =
      sheetTitle === undefined
        ? firstVisibleTab(read.tabs)
        : read.tabs.find((each) => each.title === sheetTitle);
    if (tab && read.objectSheets.has(tab.sheetId))
      throw new ToolError(
        `${what} ${JSON.stringify(range)} is on ${quotedName(tab.title)}, a sheet holding a chart, which has no cells`,
      );
    return gridRangeOf(range, read.tabs, read.namedRanges);
  }

  /** The unformatted values of each range: one values.get, or one values.batchGet for several. */
  async function valuesOf({ auth: { userId }, signal }: ToolContext, id: string, ranges: string[]) {
    if (ranges.length === 1) {
      const { data } = await callGoogle(userId, signal, (request) =>
        sheets.spreadsheets.values.get(
          { spreadsheetId: id, range: ranges[0]!, valueRenderOption: 'UNFORMATTED_VALUE' },
          request,
        ),
      );
      return [(data.values ?? []) as unknown[][]];
    }
    const { data } = await callGoogle(userId, signal, (request) =>
      sheets.spreadsheets.values.batchGet(
        { spreadsheetId: id, ranges, valueRenderOption: 'UNFORMATTED_VALUE' },
        request,
      ),
    );
    return (data.valueRanges ?? []).map((each) => (each.values ?? []) as unknown[][]);
  }

  /** The chart data a request names in spreadsheet `id`, its values read once and checked. */
  function dataOf(
    context: ToolContext,
    id: string,
    read: ChartsRead,
    request: ChartDataRequest,
    headerRow: boolean,
  ) {
    return chartDataOf(request, headerRow, {
      tabs: read.tabs,
      gridOf: (range, what) => cellsOf(read, range, what),
      valuesOf: (ranges) => valuesOf(context, id, ranges),
    });
  }

  /**
   * The overlay position of an anchor cell (a cell alone is on `defaultTab`) with a size, checked
   * against the tab's grid.
   */
  function overlayOf(
    read: ChartsRead,
    anchorCell: string,
    defaultTab: Tab,
    size: { width: number; height: number },
  ): sheets_v4.Schema$EmbeddedObjectPosition {
    const onTab =
      splitRange(anchorCell).sheetTitle === undefined && !anchorCell.includes('!')
        ? `${quotedTitle(defaultTab.title)}!${anchorCell.trim()}`
        : anchorCell;
    const { range } = cellsOf(read, onTab, 'anchorCell');
    const single =
      range.startRowIndex != null &&
      range.startColumnIndex != null &&
      range.endRowIndex === range.startRowIndex + 1 &&
      range.endColumnIndex === range.startColumnIndex + 1;
    if (!single)
      throw new ToolError(
        `anchorCell takes one cell, like 'Data'!E2; ${JSON.stringify(anchorCell)} is not one`,
      );
    return overlayAt(range.sheetId ?? 0, range.startRowIndex!, range.startColumnIndex!, size);
  }

  function checkPlacement(input: Placement) {
    if (
      input.newSheet &&
      (input.anchorCell !== undefined || input.width !== undefined || input.height !== undefined)
    )
      throw new ToolError(
        'a chart on a sheet of its own fills it: give newSheet, or anchorCell, width and height — not both',
      );
  }

  /** The text of a chart for people: `column chart "Sales" (chartId 1) on "Data" at 'Data'!E2, 600×371, from …`. */
  function describe(view: ChartView): string {
    const title = view.title ? ` ${quotedName(view.title)}` : '';
    const id = view.chartId === null ? '' : ` (chartId ${view.chartId})`;
    const where = view.ownSheet
      ? view.tab === null
        ? 'alone on a new sheet'
        : `alone on its own sheet ${quotedName(view.tab)}`
      : `over ${quotedName(view.tab ?? '')} at ${view.anchorCell}, ${view.width}×${view.height}`;
    const data = view.domain ? `, from ${view.domain} and ${view.series.join(', ')}` : '';
    return `${view.type} chart${title}${id} ${where}${data}`;
  }

  return [
    defineTool({
      name: 'add_chart',
      toolset: 'charts',
      title: 'Add a chart',
      description:
        'Adds a chart of a range (first column the labels, each other a series), of chosen columns of it, or of domain and series.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        type: z.enum(CHART_TYPES),
        ...chartDataInput,
        headerRow: z.boolean().default(true),
        title: chartTitle.optional(),
        xAxisTitle: axisTitle.optional(),
        yAxisTitle: axisTitle.optional(),
        legendPosition: z.enum(LEGEND_POSITIONS).default('bottom'),
        stacked: z
          .boolean()
          .default(false)
          .describe(`${STACKABLE.join(', ')} charts.`),
        ...placementInput,
        dryRun,
      }),
      outputSchema: chartOutput.extend({ dryRun: dryRunOutput }),
      async run(input, context) {
        const { auth, signal } = context;
        checkPlacement(input);
        checkDataRequest(input, false);
        const read = await readCharts(auth.userId, signal, input.spreadsheetId);
        const data = await dataOf(context, input.spreadsheetId, read, input, input.headerRow);
        const shape: ChartShape = {
          type: input.type,
          title: input.title || null,
          domain: data.domain,
          series: data.series,
          headerRow: input.headerRow,
          legendPosition: input.legendPosition,
          xAxisTitle: input.xAxisTitle || null,
          yAxisTitle: input.yAxisTitle || null,
          stacked: input.stacked,
        };
        const spec = specOf(shape);
        const size = {
          width: input.width ?? DEFAULT_SIZE.width,
          height: input.height ?? DEFAULT_SIZE.height,
        };
        const position: sheets_v4.Schema$EmbeddedObjectPosition = input.newSheet
          ? { newSheet: true }
          : input.anchorCell !== undefined
            ? overlayOf(read, input.anchorCell, data.tab, size)
            : overlayAt(
                data.tab.sheetId,
                data.beside.row,
                Math.min(data.beside.column + 1, Math.max(data.tab.columnCount - 1, 0)),
                size,
              );
        const anchorTab = position.overlayPosition
          ? tabById(read.tabs, position.overlayPosition.anchorCell?.sheetId ?? 0)
          : null;
        const planned = chartView({ chartId: null, spec, position }, anchorTab, read.tabs);
        if (input.dryRun)
          return {
            structuredContent: { ...planned, dryRun: true },
            text: `Dry run: would add a ${describe(planned)}. Nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { addChart: { chart: { spec, position } } },
        ]);
        const added = reply.replies?.[0]?.addChart?.chart;
        if (added?.chartId == null)
          throw new ToolError('Google added the chart but did not say its id; list_charts lists it');
        // A sheet Google made for the chart is named by Google (Chart1, …): read back to say which.
        const after = input.newSheet ? await readCharts(auth.userId, signal, input.spreadsheetId) : undefined;
        const view = after
          ? viewOf(after, chartCalled(after, added.chartId))
          : chartView({ ...added, spec, position }, anchorTab, read.tabs);
        return { structuredContent: view, text: `Added a ${describe(view)}.` };
      },
    }),

    defineTool({
      name: 'list_charts',
      toolset: 'charts',
      title: 'List charts',
      description: 'Lists the charts: chartId, type, title, data and place.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: perTabListInput('charts'),
      outputSchema: z.object({ charts: z.array(chartOutput) }),
      async run(input, { auth, signal }) {
        const read = await readCharts(auth.userId, signal, input.spreadsheetId);
        const listed = listedTabs(read.tabs, input.sheetId);
        const charts = read.charts
          .filter((each) => listed(each.sheet.sheetId))
          .map((each) => viewOf(read, each));
        const text =
          charts.length === 0
            ? 'No charts.'
            : charts.map((chart) => `${chart.chartId}: ${describe({ ...chart, chartId: null })}`).join('\n');
        return { structuredContent: { charts }, text };
      },
    }),

    defineTool({
      name: 'update_chart',
      toolset: 'charts',
      title: 'Change a chart',
      description: 'Changes what is given of a chart (data as add_chart); an empty title removes it.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        chartId,
        type: z.enum(CHART_TYPES).optional(),
        ...chartDataInput,
        headerRow: z.boolean().optional(),
        title: chartTitle.optional(),
        xAxisTitle: axisTitle.optional(),
        yAxisTitle: axisTitle.optional(),
        legendPosition: z.enum(LEGEND_POSITIONS).optional(),
        stacked: z.boolean().optional(),
        ...placementInput,
        dryRun,
      }),
      outputSchema: chartOutput.extend({ previous: chartOutput, dryRun: dryRunOutput }),
      async run(input, context) {
        const { auth, signal } = context;
        checkPlacement(input);
        if (input.newSheet === false)
          throw new ToolError('newSheet: false moves nothing; give anchorCell to put a chart over a tab');
        const specChanges = (
          [
            'type',
            'range',
            'columns',
            'domain',
            'series',
            'headerRow',
            'title',
            'xAxisTitle',
            'yAxisTitle',
            'legendPosition',
            'stacked',
          ] as const
        ).filter((key) => input[key] !== undefined);
        const moves =
          input.newSheet ||
          input.anchorCell !== undefined ||
          input.width !== undefined ||
          input.height !== undefined;
        if (specChanges.length === 0 && !moves)
          throw new ToolError(
            'give what to change: type, range, domain, series, title, xAxisTitle, yAxisTitle, legendPosition, stacked, or anchorCell, width, height, newSheet',
          );
        checkDataRequest(input, true);
        const newData = ([input.range, input.columns, input.domain, input.series] as unknown[]).some(
          (each) => each !== undefined,
        );
        if (input.headerRow !== undefined && !newData)
          throw new ToolError('headerRow goes with range, domain or series: give the data it describes');
        const read = await readCharts(auth.userId, signal, input.spreadsheetId);
        const placed = chartCalled(read, input.chartId);
        const previous = viewOf(read, placed);
        const requests: sheets_v4.Schema$Request[] = [];
        let spec = placed.chart.spec;
        if (specChanges.length > 0) {
          const shape = shapeOf(placed.chart.spec, input.chartId);
          const type = input.type ?? shape.type;
          if (newData) {
            // Domain or series alone keeps the chart's other part, and whether it counts a header.
            const keeps =
              input.range === undefined && (input.domain === undefined || input.series === undefined);
            const request: ChartDataRequest = keeps
              ? {
                  domain: input.domain ?? a1Of(shape.domain, read.tabs),
                  series: input.series ?? shape.series.map((range) => a1Of(range, read.tabs)),
                }
              : input;
            const headerRow = input.headerRow ?? (keeps ? shape.headerRow : true);
            const data = await dataOf(context, input.spreadsheetId, read, request, headerRow);
            shape.domain = data.domain;
            shape.series = data.series;
            shape.headerRow = headerRow;
          }
          const changed: ChartShape = {
            ...shape,
            type,
            ...(input.title === undefined ? {} : { title: input.title || null }),
            ...(input.legendPosition === undefined ? {} : { legendPosition: input.legendPosition }),
            // A pie chart has no axes; a type that cannot stack is unstacked, unless asked otherwise.
            xAxisTitle:
              type === 'pie'
                ? null
                : input.xAxisTitle === undefined
                  ? shape.xAxisTitle
                  : input.xAxisTitle || null,
            yAxisTitle:
              type === 'pie'
                ? null
                : input.yAxisTitle === undefined
                  ? shape.yAxisTitle
                  : input.yAxisTitle || null,
            stacked: input.stacked ?? (shape.stacked && STACKABLE.includes(type)),
          };
          if (type === 'pie' && (input.xAxisTitle || input.yAxisTitle))
            throw new ToolError('a pie chart has no axes to title');
          spec = specOf(changed);
          requests.push({ updateChartSpec: { chartId: input.chartId, spec } });
        }
        let position = placed.chart.position ?? {};
        let onSheet: { sheetId: number; title: string } | null = placed.sheet;
        if (input.newSheet) {
          if (!placed.sheet.isObject) {
            position = { newSheet: true };
            onSheet = null;
            requests.push({
              updateEmbeddedObjectPosition: {
                objectId: input.chartId,
                newPosition: { newSheet: true },
                fields: 'newSheet',
              },
            });
          }
        } else if (moves) {
          const current = placed.chart.position?.overlayPosition;
          if (!current && input.anchorCell === undefined)
            throw new ToolError(
              `chart ${input.chartId} is alone on its own sheet ${quotedName(placed.sheet.title)}: give anchorCell to put it over a tab`,
            );
          const size = {
            width: input.width ?? current?.widthPixels ?? DEFAULT_SIZE.width,
            height: input.height ?? current?.heightPixels ?? DEFAULT_SIZE.height,
          };
          const anchorTab = current
            ? tabById(read.tabs, current.anchorCell?.sheetId ?? 0)
            : // No data tab to go back over: where an anchor without a tab name is, as Google reads A1.
              tabById(read.tabs, shapeTabOf(placed.chart.spec) ?? firstVisibleTab(read.tabs)!.sheetId);
          position =
            input.anchorCell !== undefined
              ? overlayOf(read, input.anchorCell, anchorTab, size)
              : overlayAt(
                  anchorTab.sheetId,
                  current?.anchorCell?.rowIndex ?? 0,
                  current?.anchorCell?.columnIndex ?? 0,
                  size,
                  current,
                );
          const target = tabById(read.tabs, position.overlayPosition?.anchorCell?.sheetId ?? 0);
          onSheet = { sheetId: target.sheetId, title: target.title };
          requests.push({
            updateEmbeddedObjectPosition: {
              objectId: input.chartId,
              newPosition: position,
              fields: 'overlayPosition',
            },
          });
        }
        const view = chartView({ chartId: input.chartId, spec, position }, onSheet, read.tabs);
        const change = `${describe(previous)} → ${describe({ ...view, chartId: null })}`;
        if (input.dryRun)
          return {
            structuredContent: { ...view, previous, dryRun: true },
            text: `Dry run: would change the ${change}. Nothing was changed.`,
          };
        if (requests.length === 0)
          return {
            structuredContent: { ...view, previous },
            text: `The ${describe(previous)} is already so; nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, requests);
        const moved = reply.replies?.find((each) => each.updateEmbeddedObjectPosition)
          ?.updateEmbeddedObjectPosition?.position;
        let result = view;
        if (moved?.sheetId != null && !moved.overlayPosition) {
          const after = await readCharts(auth.userId, signal, input.spreadsheetId);
          result = viewOf(after, chartCalled(after, input.chartId));
        }
        return {
          structuredContent: { ...result, previous },
          text: `Changed the ${describe(previous)} → ${describe({ ...result, chartId: null })}.`,
        };
      },
    }),

    defineTool({
      name: 'delete_chart',
      toolset: 'charts',
      title: 'Delete a chart',
      description: 'Deletes a chart (and its own sheet, if it has one); its data stays.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, chartId, dryRun }),
      outputSchema: z.object({ deleted: chartOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readCharts(auth.userId, signal, input.spreadsheetId);
        const deleted = viewOf(read, chartCalled(read, input.chartId));
        return deleteFound(batchUpdate, { auth, signal }, input, {
          deleted,
          request: { deleteEmbeddedObject: { objectId: input.chartId } },
          would: `delete the ${describe(deleted)}`,
          did: `Deleted the ${describe(deleted)}.`,
        });
      },
      async describeLoss(input, { auth, signal }) {
        const read = await readCharts(auth.userId, signal, input.spreadsheetId);
        const placed = chartCalled(read, input.chartId);
        const view = viewOf(read, placed);
        // Titles and tab names are written by anyone the file is shared with: quoted and escaped.
        const title = view.title ? ` ${quotedName(view.title)}` : '';
        const where = placed.sheet.isObject
          ? `, alone on its own sheet ${quotedName(placed.sheet.title)}, which goes with it`
          : ` on the tab ${quotedName(placed.sheet.title)}`;
        return `the ${view.type} chart${title} (chartId ${input.chartId})${where}`;
      },
    }),
  ];
}

function quotedTitle(title: string): string {
  return `'${title.replaceAll("'", "''")}'`;
}

function overlayAt(
  sheetIdOfTab: number,
  rowIndex: number,
  columnIndex: number,
  size: { width: number; height: number },
  keep?: sheets_v4.Schema$OverlayPosition,
): sheets_v4.Schema$EmbeddedObjectPosition {
  return {
    overlayPosition: {
      anchorCell: { sheetId: sheetIdOfTab, rowIndex, columnIndex },
      ...(keep?.offsetXPixels ? { offsetXPixels: keep.offsetXPixels } : {}),
      ...(keep?.offsetYPixels ? { offsetYPixels: keep.offsetYPixels } : {}),
      widthPixels: size.width,
      heightPixels: size.height,
    },
  };
}

/** The tab a chart's data is on (where a chart on its own sheet goes back to by default). */
function shapeTabOf(spec: sheets_v4.Schema$ChartSpec | undefined): number | undefined {
  const domain = spec?.basicChart?.domains?.[0]?.domain ?? spec?.pieChart?.domain;
  const sheet = domain?.sourceRange?.sources?.[0]?.sheetId;
  return sheet ?? undefined;
}
