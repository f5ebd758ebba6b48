/**
 * Sheets conditions (BooleanCondition) as the rule tools take them: one text, the type and then
 * its values (`NUMBER_BETWEEN 1 10`), or the type alone with its values in `values` — so that
 * tools/list names neither every type per tool nor a shape for its values (issue 35, item 9).
 * A type a tool does not take is refused with those it takes; the values are checked for the
 * number each type needs before Google sees them, then written in Google's shape (a formula range
 * gets its `=`, a relative date word becomes `relativeDate`).
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';

/** How many values each condition takes: [fewest, most]. */
const VALUE_COUNTS = {
  NUMBER_GREATER: [1, 1],
  NUMBER_GREATER_THAN_EQ: [1, 1],
  NUMBER_LESS: [1, 1],
  NUMBER_LESS_THAN_EQ: [1, 1],
  NUMBER_EQ: [1, 1],
  NUMBER_NOT_EQ: [1, 1],
  NUMBER_BETWEEN: [2, 2],
  NUMBER_NOT_BETWEEN: [2, 2],
  TEXT_CONTAINS: [1, 1],
  TEXT_NOT_CONTAINS: [1, 1],
  TEXT_STARTS_WITH: [1, 1],
  TEXT_ENDS_WITH: [1, 1],
  TEXT_EQ: [1, 1],
  TEXT_NOT_EQ: [1, 1],
  TEXT_IS_EMAIL: [0, 0],
  TEXT_IS_URL: [0, 0],
  DATE_EQ: [1, 1],
  DATE_NOT_EQ: [1, 1],
  DATE_BEFORE: [1, 1],
  DATE_AFTER: [1, 1],
  DATE_ON_OR_BEFORE: [1, 1],
  DATE_ON_OR_AFTER: [1, 1],
  DATE_BETWEEN: [2, 2],
  DATE_NOT_BETWEEN: [2, 2],
  DATE_IS_VALID: [0, 0],
  ONE_OF_RANGE: [1, 1],
  ONE_OF_LIST: [1, 500],
  BOOLEAN: [0, 2],
  BLANK: [0, 0],
  NOT_BLANK: [0, 0],
  CUSTOM_FORMULA: [1, 1],
} as const satisfies Record<string, readonly [number, number]>;

export type ConditionType = keyof typeof VALUE_COUNTS;

const MAX_VALUE_LENGTH = 1_000;
/** Room for a list of items after ONE_OF_LIST. */
const MAX_CONDITION_LENGTH = 20_000;

/** The number comparisons, which data validation and conditional formats both accept. */
const NUMBER_CONDITIONS = [
  'NUMBER_GREATER',
  'NUMBER_GREATER_THAN_EQ',
  'NUMBER_LESS',
  'NUMBER_LESS_THAN_EQ',
  'NUMBER_EQ',
  'NUMBER_NOT_EQ',
  'NUMBER_BETWEEN',
  'NUMBER_NOT_BETWEEN',
] as const satisfies readonly ConditionType[];

/** The conditions data validation accepts (Sheets API ConditionType). */
export const VALIDATION_CONDITIONS = [
  'ONE_OF_LIST',
  'ONE_OF_RANGE',
  'BOOLEAN',
  ...NUMBER_CONDITIONS,
  'DATE_EQ',
  'DATE_BEFORE',
  'DATE_AFTER',
  'DATE_ON_OR_BEFORE',
  'DATE_ON_OR_AFTER',
  'DATE_BETWEEN',
  'DATE_NOT_BETWEEN',
  'DATE_IS_VALID',
  'TEXT_CONTAINS',
  'TEXT_NOT_CONTAINS',
  'TEXT_EQ',
  'TEXT_IS_EMAIL',
  'TEXT_IS_URL',
  'CUSTOM_FORMULA',
] as const satisfies readonly ConditionType[];

/** The conditions a conditional format's boolean rule accepts. */
export const FORMAT_CONDITIONS = [
  ...NUMBER_CONDITIONS,
  'TEXT_CONTAINS',
  'TEXT_NOT_CONTAINS',
  'TEXT_STARTS_WITH',
  'TEXT_ENDS_WITH',
  'TEXT_EQ',
  'TEXT_NOT_EQ',
  'DATE_EQ',
  'DATE_NOT_EQ',
  'DATE_BEFORE',
  'DATE_AFTER',
  'BLANK',
  'NOT_BLANK',
  'CUSTOM_FORMULA',
] as const satisfies readonly ConditionType[];

/** Google's relative dates, usable as the one value of a single-date condition. */
const RELATIVE_DATES = ['PAST_YEAR', 'PAST_MONTH', 'PAST_WEEK', 'YESTERDAY', 'TODAY', 'TOMORROW'];

/** A value as text: a number given as one is taken, though tools/list names text alone. */
const valueText = z.preprocess(
  (value) => (typeof value === 'number' ? String(value) : value),
  z.string().max(MAX_VALUE_LENGTH),
);

/** The values of a type given alone; the condition's description says they may follow it instead. */
export const conditionValues = z.array(valueText).max(500).default([]);

/**
 * A condition's text, its type checked among `types` with the arguments (so that a type the tool
 * does not take is `invalid arguments` before Google is asked); its values are read in the tool.
 */
function conditionText(types: readonly ConditionType[], described: string) {
  return z
    .string()
    .max(MAX_CONDITION_LENGTH)
    .superRefine((text, context) => {
      const word = /^\s*(\S*)/.exec(text)![1]!;
      if (word === '')
        context.addIssue({ code: 'custom', message: `no condition type; ${typesTaught(types)}` });
      else if (!(types as readonly string[]).includes(word.toUpperCase()))
        context.addIssue({
          code: 'custom',
          message: `${shown(word)} is not a condition type here; ${typesTaught(types)}`,
        });
    })
    .describe(described);
}

/** The conditional formats' and filters' condition. */
export const formatCondition = conditionText(
  FORMAT_CONDITIONS,
  'ConditionType then values: NUMBER_BETWEEN 1 9; TEXT_CONTAINS x; DATE_BEFORE TODAY; BLANK; CUSTOM_FORMULA =$A1>0',
);

/** Data validation's condition. */
export const validationCondition = conditionText(
  VALIDATION_CONDITIONS,
  'ConditionType then values: ONE_OF_LIST a, b; ONE_OF_RANGE B:B; BOOLEAN; NUMBER_GREATER 0; DATE_AFTER TODAY; TEXT_IS_EMAIL; CUSTOM_FORMULA =A1>0',
);

/** A condition as given: its type, and its values from the text or from `values`. */
export interface GivenCondition {
  type: ConditionType;
  values: string[];
}

/**
 * `NUMBER_GREATER 500`, `TEXT_CONTAINS "to do"`, `ONE_OF_LIST Open, Done`, or a type alone with
 * `values`; the type in any case. Written by hand: the grammar is one word and what follows it.
 */
export function conditionGiven(
  text: string,
  values: readonly string[],
  types: readonly ConditionType[],
  where = 'condition',
): GivenCondition {
  const match = /^\s*(\S+)(?:\s+([\s\S]*?))?\s*$/.exec(text);
  if (!match) throw new ToolError(`${where} is empty; ${typesTaught(types)}`);
  const type = match[1]!.toUpperCase() as ConditionType;
  if (!(types as readonly string[]).includes(type))
    throw new ToolError(`${where}: ${shown(match[1]!)} is not a condition type here; ${typesTaught(types)}`);
  const rest = match[2] ?? '';
  if (rest === '') return { type, values: [...values] };
  if (values.length > 0)
    throw new ToolError(`${where}: give ${type}'s values after it or in values, not both`);
  const [, most] = VALUE_COUNTS[type];
  if (most === 0) throw new ToolError(`${type} takes no value; ${shown(rest)} was given after it`);
  const parts =
    type === 'ONE_OF_LIST'
      ? rest.split(',').map((item) => item.trim())
      : most === 1
        ? [unquoted(rest)]
        : rest.split(/\s+/);
  if (parts.length > most)
    throw new ToolError(
      `${type} takes ${most === 1 ? 'one value' : `at most ${most} values`}, ${parts.length} given after it: put a value holding ${type === 'ONE_OF_LIST' ? 'a comma' : 'spaces'} in values`,
    );
  if (parts.some((part) => part.length > MAX_VALUE_LENGTH))
    throw new ToolError(
      `${where}: a value is longer than ${MAX_VALUE_LENGTH.toLocaleString('en-US')} characters`,
    );
  return { type, values: parts };
}

/** The types a tool takes, with an example of the form, for a refusal. */
function typesTaught(types: readonly ConditionType[]): string {
  return `give one of ${types.join(', ')}, then its values, e.g. "NUMBER_BETWEEN 1 10", "TEXT_CONTAINS paid" or "CUSTOM_FORMULA =$B2>0"`;
}

/** Text the caller wrote, quoted and cut short for a refusal. */
function shown(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** A value written in double quotes, without them (`TEXT_EQ "Paid"`). */
function unquoted(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** The BooleanCondition for a type and its values; a ToolError when the values do not fit the type. */
export function conditionOf(
  type: ConditionType,
  given: readonly string[],
): sheets_v4.Schema$BooleanCondition {
  // A rule made elsewhere may hold a condition these tools do not take.
  if (!Object.hasOwn(VALUE_COUNTS, type)) throw new ToolError(`the condition ${type} is not supported here`);
  const [fewest, most] = VALUE_COUNTS[type];
  const values = given.map(String);
  if (values.length < fewest || values.length > most) {
    const wanted =
      fewest === most
        ? `${fewest === 0 ? 'no' : fewest} value${fewest === 1 ? '' : 's'}`
        : most >= 500
          ? `at least ${fewest} value`
          : `${fewest} to ${most} values`;
    throw new ToolError(`${type} takes ${wanted}; ${values.length} given`);
  }
  if (values.some((value) => value.trim() === '')) throw new ToolError(`${type} values must not be empty`);
  const single = fewest === 1 && most === 1;
  const conditionValuesOut = values.map((value): sheets_v4.Schema$ConditionValue => {
    if (type.startsWith('DATE_') && single && RELATIVE_DATES.includes(value.toUpperCase()))
      return { relativeDate: value.toUpperCase() };
    if ((type === 'ONE_OF_RANGE' || type === 'CUSTOM_FORMULA') && !value.startsWith('='))
      return { userEnteredValue: `=${value}` };
    return { userEnteredValue: value };
  });
  return { type, ...(conditionValuesOut.length > 0 ? { values: conditionValuesOut } : {}) };
}

/** A condition's values as the tools show them: a relative date by its word. */
export function valuesOf(condition: sheets_v4.Schema$BooleanCondition | undefined): string[] {
  return (condition?.values ?? []).map((value) => value.relativeDate ?? value.userEnteredValue ?? '');
}
