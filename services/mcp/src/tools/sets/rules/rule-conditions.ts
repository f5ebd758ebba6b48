/**
 * Sheets conditions (BooleanCondition) as the rule tools take them: a type and plain values,
 * checked for the number of values each type needs before Google sees them, then written in
 * Google's shape (a formula range gets its `=`, a relative date word becomes `relativeDate`).
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

type ConditionType = keyof typeof VALUE_COUNTS;

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

export const conditionValues = z
  .array(z.union([z.string().max(1_000), z.number()]))
  .max(500)
  .default([])
  .describe('Numbers, dates (or TODAY…), a text, items, a range or a formula.');

/** The BooleanCondition for a type and its values; a ToolError when the values do not fit the type. */
export function conditionOf(
  type: ConditionType,
  given: ReadonlyArray<string | number>,
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
