/**
 * Runs a parsed query (query-language.ts) over a table as Sheets' QUERY does
 * (https://support.google.com/docs/answer/3093343, and the language reference,
 * https://developers.google.com/chart/interactive/docs/querylanguage):
 * - "In case of mixed data types in a single column, the majority data type determines the data
 *   type of the column for query purposes. Minority data types are considered null values."
 * - `headers` header rows are joined into each column's label; without it the emulator guesses one
 *   header row when the first row is text over a column of another type (Google: "If omitted or
 *   set to -1, the value is guessed based on the content of data").
 * - Groups come out ordered by the group-by values; pivot values become columns, in ascending
 *   order; an aggregation's label is `sum Amount`, a pivoted one the pivot value (followed by the
 *   aggregation's label when several are selected).
 */
import {
  type Expression,
  hasAggregate,
  parseQuery,
  type Query,
  QueryError,
  type QueryValue,
  SERIAL_EPOCH,
  textOf,
} from './query-language.ts';

type ColumnType = 'number' | 'string' | 'boolean';

export interface QueryTable {
  /** The cells, rows first: numbers (dates as serial numbers), text, booleans, null for empty. */
  rows: QueryValue[][];
  /** The id each column is named by: `A`, `B`, … over a range, `Col1`, `Col2`, … over an array. */
  columnIds: string[];
}

export interface QueryOutput {
  /** The header row, when any column has a label, then the result rows. */
  rows: QueryValue[][];
}

interface Source {
  types: ColumnType[];
  index: Map<string, number>;
  labels: string[];
}

export function runQuery(table: QueryTable, queryText: string, headers?: number): QueryOutput {
  const query = parseQuery(queryText);
  const width = table.columnIds.length;
  const headerCount = headers === undefined || headers < 0 ? guessHeaders(table.rows) : Math.trunc(headers);
  const headerRows = table.rows.slice(0, headerCount);
  const body = table.rows.slice(headerCount);
  const types = Array.from({ length: width }, (_, column) => majorityType(body, column));
  const source: Source = {
    types,
    index: new Map(table.columnIds.map((id, column) => [id, column])),
    labels: Array.from({ length: width }, (_, column) =>
      headerRows
        .map((row) => row[column])
        .filter((value) => value !== null && value !== '')
        .map((value) => String(value))
        .join(' ')
        .trim(),
    ),
  };
  // Minority types read as null.
  const typed = body.map((row) =>
    Array.from({ length: width }, (_, column) => {
      const value = row[column] ?? null;
      return value === null || typeOf(value) !== types[column] ? null : value;
    }),
  );
  const select = query.select ?? table.columnIds.map((id): Expression => ({ kind: 'column', id }));
  for (const expression of [
    ...select,
    ...(query.where ? [query.where] : []),
    ...query.groupBy,
    ...query.pivot,
    ...query.orderBy.map((order) => order.expression),
  ])
    checkColumns(expression, source);
  const kept = query.where
    ? typed.filter((row) => truthy(evaluate(query.where as Expression, { row, rows: [row] }, source)))
    : typed;
  const grouped = query.groupBy.length > 0 || query.pivot.length > 0 || select.some(hasAggregate);
  return grouped ? aggregate(query, select, kept, source) : plain(query, select, kept, source);
}

function plain(query: Query, select: Expression[], rows: QueryValue[][], source: Source): QueryOutput {
  const ordered = orderContexts(
    query,
    rows.map((row) => ({ row, rows: [row] })),
    source,
  );
  const shown = page(query, ordered).map((context) =>
    select.map((expression) => evaluate(expression, context, source)),
  );
  return withHeader(
    select.map((expression) => label(query, expression, source)),
    shown,
  );
}

interface Context {
  /** The row non-aggregated columns read: the group's first. */
  row: QueryValue[];
  /** The rows aggregations read. */
  rows: QueryValue[][];
}

function aggregate(query: Query, select: Expression[], rows: QueryValue[][], source: Source): QueryOutput {
  const groupKeys = new Set(query.groupBy.map(textOf));
  for (const expression of select)
    if (!hasAggregate(expression) && !groupKeys.has(textOf(expression)))
      throw new QueryError(`ADD_COL_TO_GROUP_BY_OR_AGG: ${textOf(expression)}`);
  const pivotKeys = new Set(query.pivot.map(textOf));
  for (const expression of select)
    if (pivotKeys.has(textOf(expression)))
      throw new QueryError(`COL_IN_PIVOT_AND_SELECT: ${textOf(expression)}`);
  const groups = new Map<string, { values: QueryValue[]; rows: QueryValue[][] }>();
  for (const row of rows) {
    const values = query.groupBy.map((expression) => evaluate(expression, { row, rows: [row] }, source));
    const key = JSON.stringify(values);
    const group = groups.get(key) ?? { values, rows: [] };
    group.rows.push(row);
    groups.set(key, group);
  }
  // With no group by, one row of aggregations over every row (even none).
  if (query.groupBy.length === 0 && groups.size === 0) groups.set('[]', { values: [], rows: [] });
  const sortedGroups = [...groups.values()].sort((a, b) => compareLists(a.values, b.values));
  let contexts: Context[] = sortedGroups.map((group) => ({ row: group.rows[0] ?? [], rows: group.rows }));
  contexts = page(query, orderContexts(query, contexts, source));
  if (query.pivot.length === 0)
    return withHeader(
      select.map((expression) => label(query, expression, source)),
      contexts.map((context) => select.map((expression) => evaluate(expression, context, source))),
    );
  const pivotOf = new Map<QueryValue[], string>();
  const pivotValues = new Map<string, QueryValue[]>();
  for (const row of rows) {
    const values = query.pivot.map((expression) => evaluate(expression, { row, rows: [row] }, source));
    const key = JSON.stringify(values);
    pivotOf.set(row, key);
    pivotValues.set(key, values);
  }
  const pivots = [...pivotValues.entries()].sort(([, a], [, b]) => compareLists(a, b));
  const aggregations = select.filter(hasAggregate);
  const keys = select.filter((expression) => !hasAggregate(expression));
  const header = [
    ...keys.map((expression) => label(query, expression, source)),
    ...pivots.flatMap(([, values]) =>
      aggregations.map((expression) => {
        const name = values.map((value) => (value === null ? '' : String(value))).join(', ');
        return aggregations.length === 1 ? name : `${name} ${label(query, expression, source)}`;
      }),
    ),
  ];
  const body = contexts.map((context) => {
    const byPivot = new Map<string, QueryValue[][]>();
    for (const row of context.rows) {
      const key = pivotOf.get(row) ?? '';
      byPivot.set(key, [...(byPivot.get(key) ?? []), row]);
    }
    return [
      ...keys.map((expression) => evaluate(expression, context, source)),
      ...pivots.flatMap(([key]) => {
        const inPivot = byPivot.get(key) ?? [];
        return aggregations.map((expression) =>
          inPivot.length === 0
            ? null
            : evaluate(expression, { row: inPivot[0] ?? [], rows: inPivot }, source),
        );
      }),
    ];
  });
  return withHeader(header, body);
}

function orderContexts(query: Query, contexts: Context[], source: Source): Context[] {
  if (query.orderBy.length === 0) return contexts;
  const keyed = contexts.map((context) => ({
    context,
    keys: query.orderBy.map((order) => evaluate(order.expression, context, source)),
  }));
  keyed.sort((a, b) => {
    for (const [index, order] of query.orderBy.entries()) {
      const difference = compareValues(a.keys[index] ?? null, b.keys[index] ?? null);
      if (difference !== 0) return order.descending ? -difference : difference;
    }
    return 0;
  });
  return keyed.map((entry) => entry.context);
}

function page<T>(query: Query, items: T[]): T[] {
  const start = query.offset;
  return items.slice(start, query.limit === undefined ? undefined : start + query.limit);
}

function withHeader(labels: string[], rows: QueryValue[][]): QueryOutput {
  return { rows: labels.some((text) => text !== '') ? [labels, ...rows] : rows };
}

function label(query: Query, expression: Expression, source: Source): string {
  const given = query.labels.get(textOf(expression));
  if (given !== undefined) return given;
  if (expression.kind === 'column') return source.labels[source.index.get(expression.id) ?? -1] ?? '';
  if (expression.kind === 'aggregate')
    return `${expression.aggregation} ${label(query, expression.argument, source)}`.trim();
  return textOf(expression);
}

function checkColumns(expression: Expression, source: Source): void {
  switch (expression.kind) {
    case 'column':
      if (!source.index.has(expression.id)) throw new QueryError(`NO_COLUMN: ${expression.id}`);
      return;
    case 'aggregate':
      checkColumns(expression.argument, source);
      return;
    case 'call':
      for (const arg of expression.args) checkColumns(arg, source);
      return;
    case 'arithmetic':
    case 'compare':
    case 'logical':
      checkColumns(expression.left, source);
      checkColumns(expression.right, source);
      return;
    case 'isNull':
    case 'not':
      checkColumns(expression.operand, source);
      return;
    default:
      return;
  }
}

function evaluate(expression: Expression, context: Context, source: Source): QueryValue {
  switch (expression.kind) {
    case 'column':
      return context.row[source.index.get(expression.id) ?? -1] ?? null;
    case 'literal':
      return expression.value;
    case 'aggregate': {
      const values = context.rows
        .map((row) => evaluate(expression.argument, { row, rows: [row] }, source))
        .filter((value) => value !== null);
      return aggregateValues(expression.aggregation, values);
    }
    case 'call':
      return callScalar(
        expression.name,
        expression.args.map((arg) => evaluate(arg, context, source)),
      );
    case 'arithmetic': {
      const left = evaluate(expression.left, context, source);
      const right = evaluate(expression.right, context, source);
      if (typeof left !== 'number' || typeof right !== 'number') return null;
      if (expression.operator === '+') return left + right;
      if (expression.operator === '-') return left - right;
      if (expression.operator === '*') return left * right;
      return right === 0 ? null : left / right;
    }
    case 'compare':
      return compare(
        expression.operator,
        nullAsText(evaluate(expression.left, context, source), expression.left, source),
        nullAsText(evaluate(expression.right, context, source), expression.right, source),
      );
    case 'isNull': {
      const isNull = evaluate(expression.operand, context, source) === null;
      return expression.negated ? !isNull : isNull;
    }
    case 'logical': {
      const left = truthy(evaluate(expression.left, context, source));
      if (expression.operator === 'and') return left && truthy(evaluate(expression.right, context, source));
      return left || truthy(evaluate(expression.right, context, source));
    }
    case 'not':
      return !truthy(evaluate(expression.operand, context, source));
  }
}

/** An empty cell of a text column compares as empty text (`where A != ''` skips it). */
function nullAsText(value: QueryValue, expression: Expression, source: Source): QueryValue {
  if (value !== null || expression.kind !== 'column') return value;
  return source.types[source.index.get(expression.id) ?? -1] === 'string' ? '' : null;
}

function compare(operator: string, left: QueryValue, right: QueryValue): boolean {
  if (left === null || right === null) {
    if (operator === '=') return left === right;
    if (operator === '!=') return left !== right;
    return false;
  }
  switch (operator) {
    case '=':
      return left === right;
    case '!=':
      return left !== right;
    case '<':
      return typeof left === typeof right && compareValues(left, right) < 0;
    case '<=':
      return typeof left === typeof right && compareValues(left, right) <= 0;
    case '>':
      return typeof left === typeof right && compareValues(left, right) > 0;
    case '>=':
      return typeof left === typeof right && compareValues(left, right) >= 0;
  }
  const text = String(left);
  const pattern = String(right);
  switch (operator) {
    case 'contains':
      return text.includes(pattern);
    case 'starts with':
      return text.startsWith(pattern);
    case 'ends with':
      return text.endsWith(pattern);
    case 'matches':
      // "matches: A (preferably simple) regular expression … applied to the whole string".
      return wholeMatch(pattern, text);
    default:
      // like: `%` any run of characters, `_` any one character.
      return new RegExp(
        `^${[...pattern].map((char) => (char === '%' ? '.*' : char === '_' ? '.' : escapeRegExp(char))).join('')}$`,
        's',
      ).test(text);
  }
}

function wholeMatch(pattern: string, text: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`, 's').test(text);
  } catch {
    throw new QueryError(`Invalid regular expression: ${pattern}`);
  }
}

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

function aggregateValues(aggregation: string, values: QueryValue[]): QueryValue {
  if (aggregation === 'count') return values.length;
  if (aggregation === 'max' || aggregation === 'min') {
    if (values.length === 0) return null;
    const sorted = [...values].sort(compareValues);
    return (aggregation === 'max' ? sorted[sorted.length - 1] : sorted[0]) ?? null;
  }
  const numbers = values.filter((value): value is number => typeof value === 'number');
  if (numbers.length === 0) return null;
  const total = numbers.reduce((sum, value) => sum + value, 0);
  return aggregation === 'sum' ? total : total / numbers.length;
}

/** Dates are serial numbers here, as Sheets keeps them; `month` counts from 0 as the language does. */
function callScalar(name: string, args: QueryValue[]): QueryValue {
  const [first, second] = args;
  if (name === 'now') return (Date.now() - SERIAL_EPOCH) / 86_400_000;
  if (name === 'upper' || name === 'lower')
    return typeof first === 'string' ? (name === 'upper' ? first.toUpperCase() : first.toLowerCase()) : null;
  if (typeof first !== 'number') return null;
  if (name === 'todate') return Math.floor(first);
  if (name === 'datediff') return typeof second === 'number' ? Math.floor(first) - Math.floor(second) : null;
  const date = new Date(SERIAL_EPOCH + Math.round(first * 86_400_000));
  switch (name) {
    case 'year':
      return date.getUTCFullYear();
    case 'month':
      return date.getUTCMonth();
    case 'day':
      return date.getUTCDate();
    case 'quarter':
      return Math.floor(date.getUTCMonth() / 3) + 1;
    case 'dayofweek':
      return date.getUTCDay() + 1;
    case 'hour':
      return date.getUTCHours();
    case 'minute':
      return date.getUTCMinutes();
    case 'second':
      return date.getUTCSeconds();
    default:
      return date.getUTCMilliseconds();
  }
}

function truthy(value: QueryValue): boolean {
  return value === true;
}

function typeOf(value: QueryValue): ColumnType | undefined {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  return undefined;
}

function majorityType(rows: QueryValue[][], column: number): ColumnType {
  const counts = { number: 0, string: 0, boolean: 0 };
  for (const row of rows) {
    const type = typeOf(row[column] ?? null);
    if (type) counts[type]++;
  }
  if (counts.number === 0 && counts.string === 0 && counts.boolean === 0) return 'string';
  if (counts.number >= counts.string && counts.number >= counts.boolean) return 'number';
  return counts.string >= counts.boolean ? 'string' : 'boolean';
}

/** One header row when the first row is text over a column whose values are of another type. */
function guessHeaders(rows: QueryValue[][]): number {
  const [first, ...body] = rows;
  if (!first || body.length === 0) return 0;
  const texts = first.every((value) => value === null || typeof value === 'string');
  if (!texts) return 0;
  return first.some((value, column) => typeof value === 'string' && majorityType(body, column) !== 'string')
    ? 1
    : 0;
}

/** Ascending order: null first, then numbers, text by code unit, booleans (false before true). */
export function compareValues(a: QueryValue, b: QueryValue): number {
  const rank = (value: QueryValue) =>
    value === null ? 0 : typeof value === 'number' ? 1 : typeof value === 'string' ? 2 : 3;
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a === null || b === null || a === b) return 0;
  return a < b ? -1 : 1;
}

function compareLists(a: QueryValue[], b: QueryValue[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = compareValues(a[index] ?? null, b[index] ?? null);
    if (difference !== 0) return difference;
  }
  return 0;
}
