/**
 * Sheets functions HyperFormula lacks or defines as Excel does, added as HyperFormula function
 * plugins (https://hyperformula.handsontable.com/guide/custom-functions.html):
 * - QUERY (https://support.google.com/docs/answer/3093343), over query-language.ts and
 *   query-execution.ts;
 * - SORT as Sheets takes it, `SORT(range, sort_column, is_ascending, [sort_column2, is_ascending2,
 *   …])` (https://support.google.com/docs/answer/3093150), where Excel's is
 *   `SORT(array, sort_index, sort_order, by_col)`;
 * - SORTN (https://support.google.com/docs/answer/7354624);
 * - FILTER over rows of a range of any width (https://support.google.com/docs/answer/3093197),
 *   where HyperFormula's takes one row or column;
 * - AVERAGEIFS (https://support.google.com/docs/answer/3256534);
 * - IMPORTRANGE between spreadsheets of one owner (import-range.ts);
 * - COUNTUNIQUE ignoring empty cells (https://support.google.com/docs/answer/3093405: "counts the
 *   number of unique values in a list of specified values and ranges"), where HyperFormula counts
 *   the empty value as one more.
 * Registered once, on HyperFormula's first load, with the runtime formulas.ts loads: the plugin
 * classes must extend that runtime's FunctionPlugin.
 */
import type {
  ArraySize as ArraySizeType,
  CellError as CellErrorType,
  FunctionPlugin as FunctionPluginType,
  SimpleRangeValue as SimpleRangeValueType,
} from 'hyperformula';
import { columnToLetters } from './a1-notation.ts';
import { importRange, importSize } from './import-range.ts';
import { runQuery } from './query-execution.ts';
import type { QueryValue } from './query-language.ts';
import { QueryError } from './query-language.ts';

type HyperFormulaModule = typeof import('hyperformula');
type Ast = { type: string; value?: unknown; args: Ast[]; left?: Ast; right?: Ast; expression?: Ast };

/** The most columns a QUERY's pivot adds to its result; past them its columns are cut (README-sheets.md). */
const PIVOT_COLUMNS = 50;

/** A query as far as the formula writes it out: its text pieces joined, anything computed as a space. */
function writtenText(ast: Ast | undefined): string {
  if (ast?.type === 'STRING') return String(ast.value);
  if (ast?.type === 'CONCATENATE_OP') return writtenText(ast.left) + writtenText(ast.right);
  if (ast?.type === 'PARENTHESES') return writtenText(ast.expression);
  return ' ';
}
type State = unknown;
/** What a plugin method receives from runFunction for a RANGE parameter, and returns. */
type Scalar = unknown;

/** How Sheets' SORT and SORTN order values: numbers, text ignoring case, booleans; blanks last either way. */
function sortRank(value: Scalar, empty: symbol): [rank: number, key: number | string] {
  if (value === empty || value === '' || value === undefined) return [4, 0];
  if (typeof value === 'number') return [0, value];
  if (typeof value === 'string') return [1, value.toLowerCase()];
  if (typeof value === 'boolean') return [2, value ? 1 : 0];
  if (typeof value === 'object' && value !== null && 'val' in value) return [0, Number(value.val)];
  return [3, 0];
}

export function registerSheetsFunctions(hf: HyperFormulaModule): void {
  const {
    HyperFormula,
    FunctionPlugin,
    FunctionArgumentType,
    ArraySize,
    SimpleRangeValue,
    CellError,
    ErrorType,
    EmptyValue,
  } = hf;
  const empty = EmptyValue as unknown as symbol;
  type Plugin = FunctionPluginType & {
    runFunction: (args: Ast[], state: State, metadata: unknown, fn: (...args: never[]) => unknown) => unknown;
    metadata: (name: string) => unknown;
    arraySizeForAst: (ast: Ast, state: State) => ArraySizeType;
    evaluateAst: (ast: Ast, state: State) => unknown;
  };
  const base = FunctionPlugin as unknown as new (...args: never[]) => Plugin;

  const raw = (value: Scalar): QueryValue => {
    if (value === empty || value instanceof CellError) return null;
    if (typeof value === 'object' && value !== null && 'val' in value) return Number(value.val);
    return value as QueryValue;
  };
  const asCell = (value: QueryValue): Scalar => (value === null || value === '' ? empty : value);
  const rowsOf = (value: unknown): Scalar[][] =>
    value instanceof SimpleRangeValue ? (value as SimpleRangeValueType).data : [[value]];

  /** Rows ordered by Sheets' sort_column, is_ascending pairs (a column index in the range, or a range as tall). */
  const sortRows = (rows: Scalar[][], pairs: unknown[], name: string): Scalar[][] | CellErrorType => {
    const keys: Array<{ column: (row: number) => Scalar; ascending: boolean }> = [];
    for (let index = 0; index < pairs.length; index += 2) {
      const column = pairs[index];
      const ascending = pairs[index + 1];
      if (column === undefined) continue;
      if (column instanceof CellError) return column;
      if (ascending instanceof CellError) return ascending;
      const up = ascending === undefined ? true : Boolean(raw(ascending));
      if (column instanceof SimpleRangeValue) {
        const data = (column as SimpleRangeValueType).data;
        if (data.length !== rows.length || (data[0]?.length ?? 0) !== 1)
          return new CellError(
            ErrorType.VALUE,
            `${name} has mismatched range sizes. Expected row count: ${rows.length}. column count: 1. Actual row count: ${data.length}, column count: ${data[0]?.length ?? 0}.`,
          );
        keys.push({ column: (row) => data[row]?.[0], ascending: up });
        continue;
      }
      const number = Math.trunc(Number(raw(column)));
      const width = rows[0]?.length ?? 0;
      if (!(number >= 1 && number <= width))
        return new CellError(
          ErrorType.VALUE,
          `Function ${name} parameter ${index + 2} value is ${number}. Valid values are between 1 and ${width} inclusive.`,
        );
      keys.push({ column: (row) => rows[row]?.[number - 1], ascending: up });
    }
    if (keys.length === 0) keys.push({ column: (row) => rows[row]?.[0], ascending: true });
    const order = rows.map((_, row) => row);
    order.sort((a, b) => compareRows(keys, a, b));
    return order.map((row) => rows[row] as Scalar[]);
  };
  const compareRows = (
    keys: Array<{ column: (row: number) => Scalar; ascending: boolean }>,
    a: number,
    b: number,
  ): number => {
    for (const key of keys) {
      const [rankA, keyA] = sortRank(key.column(a), empty);
      const [rankB, keyB] = sortRank(key.column(b), empty);
      if (rankA === 4 || rankB === 4) {
        if (rankA !== rankB) return rankA === 4 ? 1 : -1;
        continue;
      }
      const order = rankA !== rankB ? rankA - rankB : keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
      if (order !== 0) return key.ascending ? order : -order;
    }
    return 0;
  };
  const firstError = (rows: Scalar[][]): CellErrorType | undefined => {
    for (const row of rows) for (const value of row) if (value instanceof CellError) return value;
    return undefined;
  };
  /** The size of the range argument: SORT's result, and the most SORTN's or QUERY's can take. */
  const sizeOfFirst = (plugin: Plugin, ast: Ast, state: State): ArraySizeType => {
    if (ast.args.length < 1) return ArraySize.error();
    const size = plugin.arraySizeForAst(ast.args[0] as Ast, state);
    return new ArraySize(size.width, size.height);
  };

  class SheetsFunctionsPlugin extends base {
    static implementedFunctions = {
      QUERY: {
        method: 'query',
        sizeOfResultArrayMethod: 'querySize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.STRING },
          { argumentType: FunctionArgumentType.NUMBER, optionalArg: true },
        ],
      },
      FILTER: {
        method: 'filter',
        sizeOfResultArrayMethod: 'rangeSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.ANY },
        ],
        repeatLastArgs: 1,
      },
      SORT: {
        method: 'sort',
        sizeOfResultArrayMethod: 'rangeSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.ANY, optionalArg: true },
          { argumentType: FunctionArgumentType.ANY, optionalArg: true },
        ],
        repeatLastArgs: 2,
      },
      SORTN: {
        method: 'sortn',
        sizeOfResultArrayMethod: 'rangeSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.NUMBER, defaultValue: 1, emptyAsDefault: true },
          { argumentType: FunctionArgumentType.NUMBER, defaultValue: 0, emptyAsDefault: true },
          { argumentType: FunctionArgumentType.ANY, optionalArg: true },
          { argumentType: FunctionArgumentType.ANY, optionalArg: true },
        ],
        repeatLastArgs: 2,
      },
      IMPORTRANGE: {
        method: 'importrange',
        sizeOfResultArrayMethod: 'importSize',
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.STRING },
          { argumentType: FunctionArgumentType.STRING },
          { argumentType: FunctionArgumentType.STRING },
        ],
      },
      COUNTUNIQUE: {
        method: 'countunique',
        parameters: [{ argumentType: FunctionArgumentType.SCALAR }],
        repeatLastArgs: 1,
        expandRanges: true,
      },
    };

    query(ast: Ast, state: State): unknown {
      const limit = this.querySize(ast, state);
      return this.runFunction(
        ast.args,
        state,
        this.metadata('QUERY'),
        (data: SimpleRangeValueType, text: string, headers: number | undefined) => {
          const rows = data.data;
          const start = data.range?.start.col;
          const width = rows[0]?.length ?? 0;
          const columnIds = Array.from({ length: width }, (_, column) =>
            start === undefined ? `Col${column + 1}` : columnToLetters(start + column),
          );
          try {
            const output = runQuery({ rows: rows.map((row) => row.map(raw)), columnIds }, text, headers);
            if (output.rows.length === 0)
              return new CellError(ErrorType.NA, 'Query completed with an empty output.');
            const outputWidth = Math.max(...output.rows.map((row) => row.length));
            // An array is never larger than the size predicted before evaluation (querySize).
            return SimpleRangeValue.onlyValues(
              output.rows
                .slice(0, limit.height)
                .map((row) =>
                  Array.from({ length: Math.min(outputWidth, limit.width) }, (_, column) =>
                    asCell(row[column] ?? null),
                  ),
                ) as never,
            );
          } catch (error) {
            if (!(error instanceof QueryError)) throw error;
            return new CellError(
              ErrorType.VALUE,
              `Unable to parse query string for Function QUERY parameter 2: ${error.message}`,
            );
          }
        },
      );
    }

    /**
     * At most a header row over the data's rows; as wide as the columns the query selects (or the
     * data's, if more), as far as the formula writes the query out, plus with `pivot` at most
     * PIVOT_COLUMNS columns more: HyperFormula sizes an array before computing it.
     */
    querySize(ast: Ast, state: State): ArraySizeType {
      if (ast.args.length < 2) return ArraySize.error();
      const data = sizeOfFirst(this, ast, state);
      const text = writtenText(ast.args[1]);
      const select =
        /^\s*select\s+(.*?)(?=\s+(?:where|group|pivot|order|limit|offset|label|format|options)\b|$)/is.exec(
          text,
        );
      let width = Math.max(data.width, select?.[1] ? splitTopLevel(select[1]).length : 0);
      if (/\bpivot\b/i.test(text)) width += Math.min(data.height, PIVOT_COLUMNS);
      return new ArraySize(Math.max(width, 1), data.height + 1);
    }

    rangeSize(ast: Ast, state: State): ArraySizeType {
      return sizeOfFirst(this, ast, state);
    }

    /**
     * Rows whose conditions (columns as tall as the range) are all true, or columns whose conditions
     * (rows as wide) are (https://support.google.com/docs/answer/3093197).
     */
    filter(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('FILTER'),
        (range: unknown, ...conditions: unknown[]) => {
          const rows = rowsOf(range);
          const height = rows.length;
          const width = rows[0]?.length ?? 0;
          const tests = conditions.map(rowsOf);
          const byRow = tests.every((test) => test.length === height && test[0]?.length === 1);
          const byColumn = !byRow && tests.every((test) => test.length === 1 && test[0]?.length === width);
          if (!byRow && !byColumn) {
            const bad = tests.find((test) => test.length !== height || test[0]?.length !== 1) ?? [];
            return new CellError(
              ErrorType.VALUE,
              `FILTER has mismatched range sizes. Expected row count: ${height}. column count: 1. Actual row count: ${bad.length}, column count: ${bad[0]?.length ?? 0}.`,
            );
          }
          const passes = (index: number) =>
            tests.every((test) => {
              const value = raw(byRow ? test[index]?.[0] : test[0]?.[index]);
              return value === true || (typeof value === 'number' && value !== 0);
            });
          const kept = byRow
            ? rows.filter((_, row) => passes(row))
            : rows.map((line) => line.filter((_, column) => passes(column)));
          if (kept.length === 0 || (kept[0]?.length ?? 0) === 0)
            return new CellError(ErrorType.NA, 'No matches are found in FILTER evaluation.');
          return SimpleRangeValue.onlyValues(kept as never);
        },
      );
    }

    sort(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('SORT'),
        (range: unknown, ...pairs: unknown[]) => {
          const rows = rowsOf(range);
          const error = firstError(rows);
          if (error) return error;
          const sorted = sortRows(rows, pairs, 'SORT');
          return sorted instanceof CellError ? sorted : SimpleRangeValue.onlyValues(sorted as never);
        },
      );
    }

    /**
     * Display ties mode: 0 the first n rows; 1 those and every row tied with the nth; 2 the first n
     * rows after removing duplicate rows; 3 the first n unique rows with every duplicate of them.
     */
    sortn(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('SORTN'),
        (range: unknown, n: number, ties: number, ...pairs: unknown[]) => {
          const rows = rowsOf(range);
          const error = firstError(rows);
          if (error) return error;
          if (n < 0)
            return new CellError(
              ErrorType.NUM,
              `Function SORTN parameter 2 value is ${n}. It should be greater than or equal to 0.`,
            );
          if (![0, 1, 2, 3].includes(ties))
            return new CellError(
              ErrorType.NUM,
              `Function SORTN parameter 3 value is ${ties}. Valid values are between 0 and 3 inclusive.`,
            );
          const sorted = sortRows(rows, pairs, 'SORTN');
          if (sorted instanceof CellError) return sorted;
          const keyOf = (row: Scalar[] | undefined) => JSON.stringify(row?.map(raw));
          let kept: Scalar[][];
          if (ties === 0) kept = sorted.slice(0, n);
          else if (ties === 1) {
            const last = keyOf(sorted[n - 1]);
            kept = [...sorted.slice(0, n), ...sorted.slice(n).filter((row) => n > 0 && keyOf(row) === last)];
          } else {
            // Rows told apart by key, once each, so that the cost grows with the rows alone.
            const first = new Set<string>();
            const unique: Scalar[][] = [];
            for (const row of sorted) {
              if (first.size >= n) break;
              const key = keyOf(row);
              if (first.has(key)) continue;
              first.add(key);
              unique.push(row);
            }
            kept = ties === 2 ? unique : sorted.filter((row) => first.has(keyOf(row)));
          }
          if (kept.length === 0) return new CellError(ErrorType.REF, 'SORTN has no rows to show.');
          return SimpleRangeValue.onlyValues(kept as never);
        },
      );
    }

    /** The origin argument is the formula's spreadsheet (import-range.ts, withImportOrigin). */
    importrange(ast: Ast, state: State): unknown {
      const limit = this.importSize(ast, state);
      return this.runFunction(
        ast.args,
        state,
        this.metadata('IMPORTRANGE'),
        (origin: string, url: string, range: string) => {
          const result = importRange(origin, url, range);
          if ('error' in result) return new CellError(ErrorType.REF, result.error);
          const rows = result.values
            .slice(0, limit.height)
            .map((row) => row.slice(0, limit.width).map(asCell));
          if (rows.length === 0 || (rows[0]?.length ?? 0) === 0) return empty;
          return SimpleRangeValue.onlyValues(rows as never);
        },
      );
    }

    /** The source range's size when the URL and range are written in the formula; else one cell. */
    importSize(ast: Ast, _state: State): ArraySizeType {
      const [origin, url, range] = ast.args;
      if (ast.args.length !== 3) return ArraySize.error();
      if (origin?.type !== 'STRING' || url?.type !== 'STRING' || range?.type !== 'STRING')
        return ArraySize.scalar();
      const size = importSize(String(origin.value), String(url.value), String(range.value));
      return size ? new ArraySize(Math.max(size.columns, 1), Math.max(size.rows, 1)) : ArraySize.scalar();
    }

    countunique(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('COUNTUNIQUE'), (...values: Scalar[]) => {
        const seen = new Set<unknown>();
        for (const value of values) {
          if (value === empty || value === '') continue;
          seen.add(value instanceof CellError ? `#${value.type}` : raw(value));
        }
        return seen.size;
      });
    }
  }

  // AVERAGEIFS shares SUMIFS's criteria matching (HyperFormula's ConditionalAggregationPlugin).
  const conditional = HyperFormula.getFunctionPlugin('SUMIFS') as unknown as new (
    ...args: never[]
  ) => Plugin & {
    computeConditionalAggregationFunction: (
      values: unknown,
      conditions: unknown[],
      name: string,
      initial: unknown,
      compose: (left: unknown, right: unknown) => unknown,
      map: (value: unknown) => unknown,
    ) => unknown;
  };
  class AverageIfsPlugin extends conditional {
    static implementedFunctions = {
      AVERAGEIFS: {
        method: 'averageifs',
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.NOERROR },
        ],
        repeatLastArgs: 2,
      },
    };

    averageifs(ast: Ast, state: State): unknown {
      type Partial = { sum: number; count: number } | CellErrorType;
      return this.runFunction(
        ast.args,
        state,
        this.metadata('AVERAGEIFS'),
        (values: unknown, ...conditions: unknown[]) => {
          const result = this.computeConditionalAggregationFunction(
            values,
            conditions,
            'AVERAGEIFS',
            { sum: 0, count: 0 },
            (left, right) => {
              if (left instanceof CellError) return left;
              if (right instanceof CellError) return right;
              const [a, b] = [
                left as { sum: number; count: number },
                right as { sum: number; count: number },
              ];
              return { sum: a.sum + b.sum, count: a.count + b.count };
            },
            (value): Partial => {
              if (value instanceof CellError) return value;
              const number = raw(value);
              return typeof number === 'number' ? { sum: number, count: 1 } : { sum: 0, count: 0 };
            },
          ) as Partial;
          if (result instanceof CellError) return result;
          if (result.count === 0)
            return new CellError(
              ErrorType.DIV_BY_ZERO,
              'Evaluation of function AVERAGEIFS caused a divide by zero error.',
            );
          return result.sum / result.count;
        },
      );
    }
  }

  // Google's words for a lookup that finds nothing and an average of no numbers, kept by wrapping
  // HyperFormula's own functions (their results are otherwise unchanged).
  const wrapped: Record<
    string,
    (name: string, ast: Ast, state: State, plugin: Plugin) => CellErrorType | undefined
  > = {};
  const notFound = (name: string, ast: Ast, state: State, plugin: Plugin) => {
    const key = plugin.evaluateAst(ast.args[0] as Ast, state);
    if (key instanceof SimpleRangeValue) return undefined;
    const value = raw(key);
    const text = typeof value === 'boolean' ? String(value).toUpperCase() : String(value ?? '');
    return new CellError(ErrorType.NA, `Did not find value '${text}' in ${name} evaluation.`);
  };
  /**
   * VLOOKUP over an array (https://support.google.com/docs/answer/3093318): the first row whose
   * first value equals the key (text ignoring case) when is_sorted is FALSE; else the last row,
   * in order, whose first value is not above the key.
   */
  const lookupInArray = (ast: Ast, state: State, plugin: Plugin): unknown => {
    const [keyAst, tableAst, indexAst, sortedAst] = ast.args;
    const key = raw(plugin.evaluateAst(keyAst as Ast, state));
    const table = rowsOf(plugin.evaluateAst(tableAst as Ast, state));
    const index = Math.trunc(Number(raw(plugin.evaluateAst(indexAst as Ast, state))));
    const sorted = sortedAst === undefined ? true : Boolean(raw(plugin.evaluateAst(sortedAst, state)));
    const width = table[0]?.length ?? 0;
    if (!(index >= 1 && index <= width))
      return new CellError(ErrorType.REF, `VLOOKUP evaluates to an out of bounds range.`);
    const same = (value: Scalar) => {
      const cell = raw(value);
      return typeof cell === 'string' && typeof key === 'string'
        ? cell.toLowerCase() === key.toLowerCase()
        : cell === key;
    };
    let found: Scalar[] | undefined;
    if (!sorted) found = table.find((row) => same(row[0]));
    else
      for (const row of table) {
        const cell = raw(row[0]);
        if (cell === null || typeof cell !== typeof key) continue;
        const above =
          typeof cell === 'string'
            ? cell.toLowerCase() > String(key).toLowerCase()
            : (cell as number) > (key as number);
        if (above) break;
        found = row;
      }
    if (!found) return notFound('VLOOKUP', ast, state, plugin);
    return found[index - 1] ?? empty;
  };
  /** A literal holding a value, in HyperFormula's AST, to look one key up with. */
  const literalAst = (value: Scalar): Ast => {
    if (typeof value === 'number') return { type: 'NUMBER', value, args: [] };
    if (typeof value === 'string') return { type: 'STRING', value, args: [] };
    if (typeof value === 'boolean')
      return { type: 'FUNCTION_CALL', procedureName: value ? 'TRUE' : 'FALSE', args: [] } as Ast;
    if (value instanceof CellError) return { type: 'ERROR', error: value, args: [] } as Ast;
    if (typeof value === 'object' && value !== null && 'val' in value)
      return { type: 'NUMBER', value: Number(value.val), args: [] };
    return { type: 'EMPTY', args: [] };
  };
  /**
   * XLOOKUP of an array of keys (https://support.google.com/docs/answer/12405947), as
   * ARRAYFORMULA(XLOOKUP(A2:A10, …)) writes it: one result per key, the first cell of each.
   * HyperFormula's XLOOKUP gives an array for every key and throws rather than combine them;
   * undefined for a single key. An exact match searched first to last reads the two ranges once
   * for all keys; other modes look each key up alone.
   */
  const lookupEach = (ast: Ast, state: State, plugin: Plugin, lookUp: (ast: Ast) => unknown): unknown => {
    const [keyAst, ...rest] = ast.args;
    const size = keyAst && plugin.arraySizeForAst(keyAst, state);
    if (!size || (size.width === 1 && size.height === 1)) return undefined;
    const keys = plugin.evaluateAst(keyAst, state);
    if (!(keys instanceof SimpleRangeValue)) return undefined;
    const exact = exactLookup(ast, state, plugin);
    const results = (keys as SimpleRangeValueType).data.map((row) =>
      row.map((key) => {
        const result = exact ? exact(key) : lookUp({ ...ast, args: [literalAst(key), ...rest] });
        return result instanceof SimpleRangeValue
          ? ((result as SimpleRangeValueType).data[0]?.[0] ?? empty)
          : result;
      }),
    );
    return SimpleRangeValue.onlyValues(results as never);
  };
  type XlookupPlugin = Plugin & {
    doXlookup: (
      key: unknown,
      lookupRange: unknown,
      returnRange: unknown,
      notFound: unknown,
      wildcards: boolean,
      options: object,
    ) => unknown;
  };
  /**
   * XLOOKUP's exact match from first to last (match_mode 0, search_mode 1, the defaults) of one key
   * at a time over its ranges evaluated once, by HyperFormula's own search (doXlookup), or
   * undefined for other modes.
   */
  const exactLookup = (ast: Ast, state: State, plugin: Plugin): ((key: Scalar) => unknown) | undefined => {
    const [, lookupAst, returnAst, notFoundAst, matchAst, searchAst] = ast.args;
    const mode = (arg: Ast | undefined, otherwise: number) =>
      arg === undefined || arg.type === 'EMPTY' ? otherwise : raw(plugin.evaluateAst(arg, state));
    if (!lookupAst || !returnAst || mode(matchAst, 0) !== 0 || mode(searchAst, 1) !== 1) return undefined;
    const asRange = (value: unknown) =>
      value instanceof SimpleRangeValue || value instanceof CellError
        ? value
        : SimpleRangeValue.fromScalar(value as never);
    const lookupRange = asRange(plugin.evaluateAst(lookupAst, state));
    const returnRange = asRange(plugin.evaluateAst(returnAst, state));
    const notFound =
      notFoundAst === undefined || notFoundAst.type === 'EMPTY'
        ? ErrorType.NA
        : plugin.evaluateAst(notFoundAst, state);
    if (notFound instanceof SimpleRangeValue) return undefined;
    const options = { ordering: 'none', returnOccurrence: 'first', ifNoMatch: 'returnNotFound' };
    return (key) => {
      if (key instanceof CellError) return key;
      if (lookupRange instanceof CellError) return lookupRange;
      if (returnRange instanceof CellError) return returnRange;
      const result = (plugin as XlookupPlugin).doXlookup(
        key === empty ? 0 : key,
        lookupRange,
        returnRange,
        notFound,
        false,
        options,
      );
      if (
        !(
          result instanceof CellError &&
          result.type === ErrorType.NA &&
          result.message === 'Value not found.'
        )
      )
        return result;
      const value = raw(key);
      const text = typeof value === 'boolean' ? String(value).toUpperCase() : String(value ?? '');
      return new CellError(ErrorType.NA, `Did not find value '${text}' in XLOOKUP evaluation.`);
    };
  };
  /**
   * A lookup over an array of keys (ARRAYFORMULA(VLOOKUP(A2:A10, …))) with Google's words for
   * each key not found, as for a single key.
   */
  const withKeysNotFound = (
    name: string,
    ast: Ast,
    state: State,
    plugin: Plugin,
    result: SimpleRangeValueType,
  ): SimpleRangeValueType => {
    const notFoundAt = (value: unknown) =>
      value instanceof CellError && value.type === ErrorType.NA && value.message === 'Value not found.';
    if (wrapped[name] !== notFound || !result.data.some((row) => row.some(notFoundAt))) return result;
    const keys = rowsOf(plugin.evaluateAst(ast.args[0] as Ast, state));
    if (keys.length !== result.data.length) return result;
    return SimpleRangeValue.onlyValues(
      result.data.map((row, r) =>
        row.map((value, c) => {
          if (!notFoundAt(value)) return value;
          const key = raw(keys[r]?.[c] ?? keys[r]?.[0]);
          const text = typeof key === 'boolean' ? String(key).toUpperCase() : String(key ?? '');
          return new CellError(ErrorType.NA, `Did not find value '${text}' in ${name} evaluation.`);
        }),
      ) as never,
    );
  };
  const noNumbers = (name: string) =>
    new CellError(ErrorType.DIV_BY_ZERO, `Evaluation of function ${name} caused a divide by zero error.`);
  for (const name of ['VLOOKUP', 'HLOOKUP', 'MATCH', 'XLOOKUP']) wrapped[name] = notFound;
  for (const name of ['AVERAGE', 'AVERAGEA', 'AVERAGEIF']) wrapped[name] = noNumbers;
  const byPlugin = new Map<new (...args: never[]) => Plugin, string[]>();
  for (const name of Object.keys(wrapped)) {
    const plugin = HyperFormula.getFunctionPlugin(name) as unknown as
      | (new (
          ...args: never[]
        ) => Plugin)
      | undefined;
    if (plugin) byPlugin.set(plugin, [...(byPlugin.get(plugin) ?? []), name]);
  }
  for (const [parent, functionNames] of byPlugin) {
    type Metadata = { method: string };
    const own = (parent as unknown as { implementedFunctions: Record<string, Metadata> })
      .implementedFunctions;
    class GoogleMessages extends parent {
      static implementedFunctions = Object.fromEntries(functionNames.map((name) => [name, own[name]]));
      // The parent's aliases name functions this subclass does not declare.
      static aliases = {};
    }
    for (const name of functionNames) {
      const method = (own[name] as Metadata).method;
      const original = (parent.prototype as unknown as Record<string, (ast: Ast, state: State) => unknown>)[
        method
      ];
      const wrappedMethod = function (this: Plugin, ast: Ast, state: State): unknown {
        if (name === 'XLOOKUP') {
          const each = lookupEach(ast, state, this, (one) => wrappedMethod.call(this, one, state));
          if (each !== undefined) return each;
        }
        const result = original?.call(this, ast, state);
        if (result instanceof SimpleRangeValue) return withKeysNotFound(name, ast, state, this, result);
        // HyperFormula's VLOOKUP takes only a range; Sheets also an array (of QUERY, FILTER, {…}).
        if (
          name === 'VLOOKUP' &&
          result instanceof CellError &&
          result.type === ErrorType.VALUE &&
          result.message === 'Wrong type of argument.'
        )
          return lookupInArray(ast, state, this);
        const replace =
          result instanceof CellError &&
          ((result.type === ErrorType.NA && result.message === 'Value not found.') ||
            (result.type === ErrorType.DIV_BY_ZERO && !result.message));
        return replace ? (wrapped[name]?.(name, ast, state, this) ?? result) : result;
      };
      Object.defineProperty(GoogleMessages.prototype, method, { value: wrappedMethod });
    }
    const xlookupSize = (parent.prototype as unknown as Record<string, (ast: Ast, state: State) => unknown>)
      .xlookupArraySize;
    if (functionNames.includes('XLOOKUP') && xlookupSize)
      Object.defineProperty(GoogleMessages.prototype, 'xlookupArraySize', {
        value(this: Plugin, ast: Ast, state: State) {
          const keys = ast.args[0] ? this.arraySizeForAst(ast.args[0], state) : undefined;
          // A range's size is marked as a reference, which HyperFormula reads as a single value.
          return keys && (keys.width > 1 || keys.height > 1)
            ? new ArraySize(keys.width, keys.height)
            : xlookupSize.call(this, ast, state);
        },
      });
    HyperFormula.registerFunctionPlugin(GoogleMessages as never);
  }

  const names = {
    QUERY: 'QUERY',
    FILTER: 'FILTER',
    SORT: 'SORT',
    SORTN: 'SORTN',
    COUNTUNIQUE: 'COUNTUNIQUE',
    IMPORTRANGE: 'IMPORTRANGE',
    AVERAGEIFS: 'AVERAGEIFS',
  };
  HyperFormula.registerFunctionPlugin(SheetsFunctionsPlugin as never, { enGB: names, enUS: names });
  HyperFormula.registerFunctionPlugin(AverageIfsPlugin as never, { enGB: names, enUS: names });
}

/** A select list split at its top-level commas (not those inside parentheses or quotes). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = '';
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts;
}
