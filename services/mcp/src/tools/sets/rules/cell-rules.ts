/**
 * Rules on cells (docs/design.md §11): data validation and conditional formatting, through
 * `spreadsheets.batchUpdate`, with the tabs (and the rules listed) read first by one
 * `spreadsheets.get` with a field mask — batchUpdate names a tab by sheetId, and an index or a
 * range is checked against what is there before Google sees it.
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
import { a1Of, colorOf, gridRangeOf, hexOf, TAB_FIELDS, type Tab, tabsOf } from '../../kit/rule-grid.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { spreadsheetRead } from '../../kit/spreadsheet-read.ts';
import { listedTabs, type TabRef, tabOf } from '../../kit/tab-ref.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';
import { colorScaleInput, type ScalePoint } from './color-scale.ts';
import {
  type ConditionType,
  conditionGiven,
  conditionOf,
  conditionValues,
  FORMAT_CONDITIONS,
  formatCondition,
  VALIDATION_CONDITIONS,
  validationCondition,
  valuesOf,
} from './rule-conditions.ts';

const hex = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour like #1a73e8');

const formatInput = z.object({
  backgroundColor: hex.optional(),
  textColor: hex.optional(),
  bold: z.boolean().optional(),
  italic: z.boolean().optional(),
  strikethrough: z.boolean().optional(),
  underline: z.boolean().optional(),
});

const ruleInput = {
  condition: formatCondition.optional(),
  values: conditionValues,
  format: formatInput.optional(),
  colorScale: colorScaleInput.optional(),
};

const ruleOutput = z.object({
  sheetId: z.number(),
  index: z.number(),
  ranges: z.array(z.string()),
  condition: z.string().nullable(),
  values: z.array(z.string()),
  format: z.record(z.string(), z.union([z.string(), z.boolean()])).nullable(),
  colorScale: z
    .record(
      z.string(),
      z.object({ type: z.string(), value: z.string().nullable(), color: z.string().nullable() }),
    )
    .nullable(),
});
type RuleView = z.infer<typeof ruleOutput>;

const validationOutput = z.object({
  range: z.string(),
  condition: z.string().nullable(),
  values: z.array(z.string()),
  strict: z.boolean().nullable(),
  cells: z.number(),
  dryRun: dryRunOutput,
});

export function cellRuleTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const readSpreadsheet = spreadsheetRead(deps);

  /** The tabs and, per tab, its conditional format rules in priority order. */
  async function readRules(userId: string, signal: AbortSignal, id: string) {
    const data = await readSpreadsheet(
      userId,
      signal,
      id,
      `sheets(properties(${TAB_PROPERTY_FIELDS}),conditionalFormats),namedRanges(name,range)`,
    );
    return { tabs: tabsOf(data), sheets: data.sheets ?? [], namedRanges: data.namedRanges ?? [] };
  }

  /** The rule delete_conditional_format names, as listed, with the read it was found in. */
  async function ruleToDelete(
    userId: string,
    signal: AbortSignal,
    input: { spreadsheetId: string; sheetId: TabRef; index: number },
  ) {
    const read = await readRules(userId, signal, input.spreadsheetId);
    const tab = tabOf(read.tabs, input.sheetId);
    const rule = ruleView(ruleAt(read, tab.sheetId, input.index), tab.sheetId, input.index, read.tabs);
    return { read, rule, tab };
  }

  function ruleAt(read: Awaited<ReturnType<typeof readRules>>, sheetIdAsked: number, index: number) {
    const rules =
      read.sheets.find((sheet) => (sheet.properties?.sheetId ?? 0) === sheetIdAsked)?.conditionalFormats ??
      [];
    const rule = rules[index];
    if (!rule) {
      throw new ToolError(
        `the tab with sheetId ${sheetIdAsked} has ${amount(rules.length, 'conditional format rule')}${rules.length > 0 ? ` (index 0 to ${rules.length - 1})` : ''}, so none at index ${index}; list_conditional_formats lists them`,
      );
    }
    return rule;
  }

  return [
    defineTool({
      name: 'set_data_validation',
      toolset: 'rules',
      title: 'Set data validation',
      description: 'Sets (or with clear, removes) the data validation of a range.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        condition: validationCondition.optional(),
        values: conditionValues,
        strict: z.boolean().default(true).describe('false: only warn.'),
        showDropdown: z.boolean().default(true),
        inputMessage: z.string().max(500).optional().describe('Shown when a cell is selected.'),
        clear: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: validationOutput,
      async run(input, { auth, signal }) {
        if (input.clear === (input.condition !== undefined))
          throw new ToolError(
            'give a condition to set a rule, or clear: true (and no condition) to remove one',
          );
        const given =
          input.condition === undefined
            ? undefined
            : conditionGiven(input.condition, input.values, VALIDATION_CONDITIONS);
        const condition = given ? conditionOf(given.type, given.values) : undefined;
        const read = await readSpreadsheet(auth.userId, signal, input.spreadsheetId, TAB_FIELDS);
        const tabs = tabsOf(read);
        const { range, tab } = gridRangeOf(input.range, tabs, read.namedRanges ?? []);
        const cells =
          ((range.endRowIndex ?? tab.rowCount) - (range.startRowIndex ?? 0)) *
          ((range.endColumnIndex ?? tab.columnCount) - (range.startColumnIndex ?? 0));
        const a1 = a1Of(range, tabs);
        const result = {
          range: a1,
          condition: given?.type ?? null,
          values: valuesOf(condition),
          strict: condition ? input.strict : null,
          cells,
        };
        const what = condition
          ? `${given?.type}${result.values.length ? ` (${result.values.join(', ')})` : ''}, ${input.strict ? 'strict' : 'warning only'}`
          : 'no validation';
        if (input.dryRun)
          return {
            structuredContent: { ...result, dryRun: true },
            text: `Dry run: would set ${what} on ${a1} (${amount(cells, 'cell')}). Nothing was changed.`,
          };
        const rule: sheets_v4.Schema$DataValidationRule | undefined = condition && {
          condition,
          strict: input.strict,
          ...(given?.type === 'ONE_OF_LIST' || given?.type === 'ONE_OF_RANGE'
            ? { showCustomUi: input.showDropdown }
            : {}),
          ...(input.inputMessage ? { inputMessage: input.inputMessage } : {}),
        };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { setDataValidation: { range, ...(rule ? { rule } : {}) } },
        ]);
        return { structuredContent: result, text: `Set ${what} on ${a1} (${amount(cells, 'cell')}).` };
      },
    }),

    defineTool({
      name: 'add_conditional_format',
      toolset: 'rules',
      title: 'Add a conditional format',
      description:
        'Adds a conditional format rule to ranges of one tab: a condition with a format, or a colour scale.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        ranges: z.array(a1Range).min(1).max(20).describe('All on one tab.'),
        ...ruleInput,
        index: z.number().int().min(0).default(0).describe('0 is applied first.'),
        dryRun,
      }),
      outputSchema: ruleOutput.extend({ dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readRules(auth.userId, signal, input.spreadsheetId);
        const { rule, tab } = formatRuleOf(ruleGiven(input), input.ranges, read.tabs, read.namedRanges);
        const count = read.sheets.find((sheet) => sheet.properties?.sheetId === tab.sheetId)
          ?.conditionalFormats?.length;
        const index = Math.min(input.index, count ?? 0);
        const view = ruleView(rule, tab.sheetId, index, read.tabs);
        if (input.dryRun)
          return {
            structuredContent: { ...view, dryRun: true },
            text: `Dry run: would add ${describeRule(view)} at index ${index}. Nothing was changed.`,
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { addConditionalFormatRule: { rule, index } },
        ]);
        return { structuredContent: view, text: `Added ${describeRule(view)} at index ${index}.` };
      },
    }),

    defineTool({
      name: 'list_conditional_formats',
      toolset: 'rules',
      title: 'List conditional formats',
      description: 'Lists the conditional format rules with the sheetId and index other tools take.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: perTabListInput('rules'),
      outputSchema: z.object({ rules: z.array(ruleOutput) }),
      async run(input, { auth, signal }) {
        const read = await readRules(auth.userId, signal, input.spreadsheetId);
        const listed = listedTabs(read.tabs, input.sheetId);
        const rules = read.sheets
          .filter((sheet) => listed(sheet.properties?.sheetId ?? 0))
          .flatMap((sheet) =>
            (sheet.conditionalFormats ?? []).map((rule, index) =>
              ruleView(rule, sheet.properties?.sheetId ?? 0, index, read.tabs),
            ),
          );
        const text =
          rules.length === 0
            ? 'No conditional format rules.'
            : rules.map((rule) => `sheetId ${rule.sheetId} #${rule.index}: ${describeRule(rule)}`).join('\n');
        return { structuredContent: { rules }, text };
      },
    }),

    defineTool({
      name: 'update_conditional_format',
      toolset: 'rules',
      title: 'Change a conditional format',
      description: 'Replaces (or moves to newIndex) the conditional format rule at sheetId and index.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        sheetId,
        index: z.number().int().min(0),
        ranges: z.array(a1Range).min(1).max(20).optional(),
        ...ruleInput,
        newIndex: z.number().int().min(0).optional().describe('Only move the rule.'),
        dryRun,
      }),
      outputSchema: ruleOutput.extend({ previous: ruleOutput, dryRun: dryRunOutput }),
      async run(given, { auth, signal }) {
        const read = await readRules(auth.userId, signal, given.spreadsheetId);
        const input = { ...ruleGiven(given), sheetId: tabOf(read.tabs, given.sheetId).sheetId };
        const existing = ruleAt(read, input.sheetId, input.index);
        const previous = ruleView(existing, input.sheetId, input.index, read.tabs);
        const changesRule = input.condition || input.colorScale || input.format || input.ranges;
        let request: sheets_v4.Schema$Request;
        let view: RuleView;
        if (input.newIndex !== undefined) {
          if (changesRule)
            throw new ToolError('give newIndex to move a rule, or a new rule to replace it — not both');
          const count = read.sheets.find((sheet) => sheet.properties?.sheetId === input.sheetId)
            ?.conditionalFormats?.length as number;
          if (input.newIndex >= count)
            throw new ToolError(
              `newIndex ${input.newIndex} is past the last rule of the tab (index ${count - 1})`,
            );
          request = {
            updateConditionalFormatRule: {
              sheetId: input.sheetId,
              index: input.index,
              newIndex: input.newIndex,
            },
          };
          view = { ...previous, index: input.newIndex };
        } else {
          if (!changesRule)
            throw new ToolError('give the new rule (condition and format, or colorScale), or newIndex');
          const ranges = input.ranges ?? previous.ranges;
          // A rule keeps what is not given: its format with a new condition, its condition with a
          // new format, its condition and format or its colour scale with new ranges.
          const keepsScale =
            input.colorScale !== undefined ||
            (previous.colorScale !== null && input.condition === undefined && input.format === undefined);
          const wanted: RuleInput = keepsScale
            ? { values: [], colorScale: input.colorScale ?? scaleInputOf(previous.colorScale) }
            : {
                condition: input.condition ?? (previous.condition as ConditionType),
                values: input.condition ? input.values : previous.values,
                format: input.format ?? formatViewInput(previous.format),
              };
          const built = formatRuleOf(wanted, ranges, read.tabs, read.namedRanges);
          if (built.tab.sheetId !== input.sheetId)
            throw new ToolError('a rule stays on its tab: give ranges on the tab with that sheetId');
          request = {
            updateConditionalFormatRule: { sheetId: input.sheetId, index: input.index, rule: built.rule },
          };
          view = ruleView(built.rule, input.sheetId, input.index, read.tabs);
        }
        const said = `the rule at index ${input.index} (${describeRule(previous)})`;
        const becomes =
          input.newIndex !== undefined
            ? `moved to index ${input.newIndex}`
            : `replaced by ${describeRule(view)}`;
        if (input.dryRun)
          return {
            structuredContent: { ...view, previous, dryRun: true },
            text: `Dry run: ${said} would be ${becomes}. Nothing was changed.`,
          };
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [request]);
        return { structuredContent: { ...view, previous }, text: `${capitalised(said)} was ${becomes}.` };
      },
    }),

    defineTool({
      name: 'delete_conditional_format',
      toolset: 'rules',
      title: 'Delete a conditional format',
      description: 'Deletes the conditional format rule at sheetId and index.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, sheetId, index: z.number().int().min(0), dryRun }),
      outputSchema: z.object({ deleted: ruleOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const { rule: deleted, tab } = await ruleToDelete(auth.userId, signal, input);
        return deleteFound(batchUpdate, { auth, signal }, input, {
          deleted,
          request: { deleteConditionalFormatRule: { sheetId: tab.sheetId, index: input.index } },
          would: `delete ${describeRule(deleted)} (index ${input.index})`,
          did: `Deleted ${describeRule(deleted)} (index ${input.index}).`,
        });
      },
      async describeLoss(input, { auth, signal }) {
        const { rule, tab } = await ruleToDelete(auth.userId, signal, input);
        // Values, ranges and the tab's title are written by anyone the file is shared with: quoted and escaped.
        const kind = rule.colorScale
          ? 'a colour scale'
          : `${rule.condition}${rule.values.map((value) => ` ${quotedName(value)}`).join(',')}`;
        return `the conditional format rule ${input.index} of the tab ${quotedName(tab.title)} (${kind} on ${rule.ranges.map(quotedName).join(', ')})`;
      },
    }),
  ];
}

type FormatInput = z.infer<typeof formatInput>;
type RuleInput = {
  condition?: ConditionType | undefined;
  values: string[];
  format?: FormatInput | undefined;
  colorScale?: z.infer<typeof colorScaleInput> | undefined;
};

/** The tool's arguments with the condition's text read into its type and values. */
function ruleGiven<Input extends { condition?: string | undefined; values: string[] }>(
  input: Input,
): Omit<Input, 'condition'> & { condition?: ConditionType } {
  if (input.condition === undefined) return input as Omit<Input, 'condition'>;
  const { type, values } = conditionGiven(input.condition, input.values, FORMAT_CONDITIONS);
  return { ...input, condition: type, values };
}

/** A ConditionalFormatRule from the tool's arguments, on ranges of one tab; refused when incomplete. */
function formatRuleOf(
  input: RuleInput,
  ranges: readonly string[],
  tabs: readonly Tab[],
  namedRanges: readonly sheets_v4.Schema$NamedRange[],
) {
  const grids = ranges.map((range) => gridRangeOf(range, tabs, namedRanges));
  const tab = grids[0]!.tab;
  if (grids.some((grid) => grid.tab.sheetId !== tab.sheetId))
    throw new ToolError('all ranges of a conditional format must be on one tab');
  const gridRanges = grids.map((grid) => grid.range);
  if ((input.condition === undefined) === (input.colorScale === undefined))
    throw new ToolError('give either a condition with a format, or a colorScale');
  if (input.colorScale) {
    if (input.format) throw new ToolError('a colour scale has no format: give its colours in colorScale');
    const point = (name: string, given: ScalePoint): sheets_v4.Schema$InterpolationPoint => {
      const needsValue = given.type !== 'MIN' && given.type !== 'MAX';
      if (needsValue && (given.value === undefined || String(given.value).trim() === ''))
        throw new ToolError(`colorScale.${name} of type ${given.type} needs a value`);
      if (!needsValue && given.value !== undefined)
        throw new ToolError(`colorScale.${name} of type ${given.type} takes no value`);
      return {
        type: given.type,
        ...(needsValue ? { value: String(given.value) } : {}),
        color: colorOf(given.color),
      };
    };
    if (input.colorScale.min.type === 'MAX' || input.colorScale.max.type === 'MIN')
      throw new ToolError('colorScale.min cannot be MAX, nor colorScale.max MIN');
    if (input.colorScale.mid && ['MIN', 'MAX'].includes(input.colorScale.mid.type))
      throw new ToolError('colorScale.mid takes NUMBER, PERCENT or PERCENTILE');
    const rule: sheets_v4.Schema$ConditionalFormatRule = {
      ranges: gridRanges,
      gradientRule: {
        minpoint: point('min', input.colorScale.min),
        ...(input.colorScale.mid ? { midpoint: point('mid', input.colorScale.mid) } : {}),
        maxpoint: point('max', input.colorScale.max),
      },
    };
    return { rule, tab };
  }
  const condition = conditionOf(input.condition!, input.values);
  const format = cellFormatOf(input.format);
  if (!format) throw new ToolError('a condition needs a format: backgroundColor, textColor, bold, italic, …');
  const rule: sheets_v4.Schema$ConditionalFormatRule = {
    ranges: gridRanges,
    booleanRule: { condition, format },
  };
  return { rule, tab };
}

function cellFormatOf(format: FormatInput | undefined): sheets_v4.Schema$CellFormat | undefined {
  if (!format) return undefined;
  const textFormat: sheets_v4.Schema$TextFormat = {};
  if (format.textColor) textFormat.foregroundColor = colorOf(format.textColor);
  for (const key of ['bold', 'italic', 'strikethrough', 'underline'] as const)
    if (format[key] !== undefined) textFormat[key] = format[key];
  const cellFormat: sheets_v4.Schema$CellFormat = {};
  if (format.backgroundColor) cellFormat.backgroundColor = colorOf(format.backgroundColor);
  if (Object.keys(textFormat).length > 0) cellFormat.textFormat = textFormat;
  return Object.keys(cellFormat).length > 0 ? cellFormat : undefined;
}

function formatView(format: sheets_v4.Schema$CellFormat | undefined): RuleView['format'] {
  if (!format) return null;
  const view: Record<string, string | boolean> = {};
  const background = hexOf(format.backgroundColor ?? format.backgroundColorStyle?.rgbColor);
  if (background) view.backgroundColor = background;
  const text = format.textFormat;
  const foreground = hexOf(text?.foregroundColor ?? text?.foregroundColorStyle?.rgbColor);
  if (foreground) view.textColor = foreground;
  for (const key of ['bold', 'italic', 'strikethrough', 'underline'] as const) {
    const value = text?.[key];
    if (typeof value === 'boolean') view[key] = value;
  }
  return view;
}

function scaleInputOf(view: RuleView['colorScale']): RuleInput['colorScale'] {
  if (!view?.min || !view.max) return undefined;
  const point = (given: NonNullable<RuleView['colorScale']>[string]) => ({
    type: given.type as ScalePoint['type'],
    ...(given.value === null ? {} : { value: given.value }),
    color: given.color ?? '#000000',
  });
  return { min: point(view.min), ...(view.mid ? { mid: point(view.mid) } : {}), max: point(view.max) };
}

function formatViewInput(view: RuleView['format']): FormatInput | undefined {
  return view ? (view as FormatInput) : undefined;
}

function ruleView(
  rule: sheets_v4.Schema$ConditionalFormatRule,
  sheetIdOfRule: number,
  index: number,
  tabs: readonly Tab[],
): RuleView {
  const gradient = rule.gradientRule;
  const point = (given: sheets_v4.Schema$InterpolationPoint | undefined) =>
    given
      ? {
          type: given.type ?? 'MIN',
          value: given.value ?? null,
          color: hexOf(given.color ?? given.colorStyle?.rgbColor) ?? null,
        }
      : undefined;
  const colorScale = gradient
    ? Object.fromEntries(
        (
          [
            ['min', point(gradient.minpoint)],
            ['mid', point(gradient.midpoint)],
            ['max', point(gradient.maxpoint)],
          ] as const
        ).filter(([, value]) => value !== undefined),
      )
    : null;
  return {
    sheetId: sheetIdOfRule,
    index,
    ranges: (rule.ranges ?? []).map((range) => a1Of(range, tabs)),
    condition: rule.booleanRule?.condition?.type ?? null,
    values: valuesOf(rule.booleanRule?.condition),
    format: formatView(rule.booleanRule?.format),
    colorScale: colorScale as RuleView['colorScale'],
  };
}

function describeRule(rule: RuleView): string {
  const where = rule.ranges.join(', ');
  if (rule.colorScale) {
    const points = Object.entries(rule.colorScale)
      .map(
        ([name, point]) =>
          `${name} ${point.type}${point.value === null ? '' : ` ${point.value}`} ${point.color}`,
      )
      .join(', ');
    return `a colour scale on ${where} (${points})`;
  }
  const values = rule.values.length > 0 ? ` ${rule.values.join(', ')}` : '';
  const format = Object.entries(rule.format ?? {})
    .map(([key, value]) => (value === true ? key : `${key} ${value}`))
    .join(', ');
  return `${rule.condition}${values} → ${format || 'no format'} on ${where}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
