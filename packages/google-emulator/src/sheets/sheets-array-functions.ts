/**
 * Sheets' array functions HyperFormula lacks, added as function plugins (Google's function list:
 * https://support.google.com/docs/table/25273):
 * - FLATTEN (https://support.google.com/docs/answer/10307761): the values of its ranges in one
 *   column, row by row;
 * - CHOOSECOLS (https://support.google.com/docs/answer/13197914) and CHOOSEROWS: columns or rows
 *   picked by number, a negative one counted from the end;
 * - TOCOL and TOROW: an array in one column or row, by row or by column, blanks or errors left
 *   out on request (ignore 1 blanks, 2 errors, 3 both);
 * - ROW and COLUMN of a range of more than one row or column: the number of each
 *   (https://support.google.com/docs/answer/3093316, /3093373), as FILTER, SUMPRODUCT and
 *   ARRAYFORMULA read `ROW(A2:A40)`; HyperFormula gives the first one alone. A formula that is
 *   only ROW or COLUMN of a range shows the first, as in Sheets (formulas.ts);
 * - UNIQUE (https://support.google.com/docs/answer/10522653) as HyperFormula's, in time growing
 *   with the rows: the library compares each row with every distinct row found before it, which
 *   on a column of many distinct values (ids over a 10,000-row tab) took minutes.
 * Registered once, on HyperFormula's first load (formulas.ts).
 */
import type { ArraySize as ArraySizeType, SimpleRangeValue as SimpleRangeValueType } from 'hyperformula';
import {
  type Ast,
  answerParentMetadata,
  type HyperFormulaModule,
  type Plugin,
  pluginBase,
  rowsOf,
  type State,
} from './function-plugin-base.ts';

export function registerSheetsArrayFunctions(hf: HyperFormulaModule): void {
  const {
    HyperFormula,
    FunctionArgumentType,
    ArraySize,
    SimpleRangeValue,
    CellError,
    ErrorType,
    EmptyValue,
  } = hf;
  const array = (rows: unknown[][]) => SimpleRangeValue.onlyValues(rows as never);
  const picked = (name: string, parameter: number, index: number, count: number) => {
    const at = Math.trunc(index);
    if (at === 0 || Math.abs(at) > count)
      return new CellError(
        ErrorType.VALUE,
        `Function ${name} parameter ${parameter} value is ${at}. Valid values are between 1 and ${count} inclusive, or between -${count} and -1.`,
      );
    return at > 0 ? at - 1 : count + at;
  };
  const choose =
    (name: string, flip: boolean) =>
    (range: unknown, ...indexes: number[]) => {
      const source = rowsOf(hf, range);
      const lines = flip ? transpose(source) : source;
      const count = lines[0]?.length ?? 0;
      const columns: number[] = [];
      for (const [position, index] of indexes.entries()) {
        const column = picked(name, position + 2, index, count);
        if (column instanceof CellError) return column;
        columns.push(column);
      }
      const chosen = lines.map((line) => columns.map((column) => line[column]));
      return array(flip ? transpose(chosen) : chosen);
    };
  const line = (name: string, asRow: boolean) => (range: unknown, ignore: number, byColumn: boolean) => {
    if (![0, 1, 2, 3].includes(ignore))
      return new CellError(
        ErrorType.VALUE,
        `Function ${name} parameter 2 value is ${ignore}. Valid values are 0, 1, 2 and 3.`,
      );
    const source = rowsOf(hf, range);
    const values = (byColumn ? transpose(source) : source)
      .flat()
      .filter(
        (value) =>
          !(
            (ignore & 1 && (value === EmptyValue || value === '')) ||
            (ignore & 2 && value instanceof CellError)
          ),
      );
    if (values.length === 0) return new CellError(ErrorType.NA, `${name} has no values to show.`);
    return array(asRow ? [values] : values.map((value) => [value]));
  };

  class SheetsArrayFunctionsPlugin extends pluginBase(hf) {
    static implementedFunctions = {
      FLATTEN: {
        method: 'flatten',
        sizeOfResultArrayMethod: 'flattenSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [{ argumentType: FunctionArgumentType.RANGE }],
        repeatLastArgs: 1,
      },
      CHOOSECOLS: {
        method: 'choosecols',
        sizeOfResultArrayMethod: 'choosecolsSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.NUMBER },
        ],
        repeatLastArgs: 1,
      },
      CHOOSEROWS: {
        method: 'chooserows',
        sizeOfResultArrayMethod: 'chooserowsSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.NUMBER },
        ],
        repeatLastArgs: 1,
      },
      TOCOL: {
        method: 'tocol',
        sizeOfResultArrayMethod: 'tocolSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.NUMBER, defaultValue: 0, emptyAsDefault: true },
          { argumentType: FunctionArgumentType.BOOLEAN, defaultValue: false, emptyAsDefault: true },
        ],
      },
      TOROW: {
        method: 'torow',
        sizeOfResultArrayMethod: 'torowSize',
        enableArrayArithmeticForArguments: true,
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.RANGE },
          { argumentType: FunctionArgumentType.NUMBER, defaultValue: 0, emptyAsDefault: true },
          { argumentType: FunctionArgumentType.BOOLEAN, defaultValue: false, emptyAsDefault: true },
        ],
      },
    };

    flatten(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('FLATTEN'), (...ranges: unknown[]) =>
        array(
          ranges.flatMap((range) =>
            rowsOf(hf, range)
              .flat()
              .map((value) => [value]),
          ),
        ),
      );
    }

    flattenSize(ast: Ast, state: State): ArraySizeType {
      if (ast.args.length < 1) return ArraySize.error();
      let height = 0;
      for (const arg of ast.args) {
        const size = this.arraySizeForAst(arg, state);
        height += size.width * size.height;
      }
      return new ArraySize(1, height);
    }

    choosecols(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('CHOOSECOLS'), choose('CHOOSECOLS', false));
    }

    choosecolsSize(ast: Ast, state: State): ArraySizeType {
      if (ast.args.length < 2) return ArraySize.error();
      return new ArraySize(ast.args.length - 1, this.arraySizeForAst(ast.args[0] as Ast, state).height);
    }

    chooserows(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('CHOOSEROWS'), choose('CHOOSEROWS', true));
    }

    chooserowsSize(ast: Ast, state: State): ArraySizeType {
      if (ast.args.length < 2) return ArraySize.error();
      return new ArraySize(this.arraySizeForAst(ast.args[0] as Ast, state).width, ast.args.length - 1);
    }

    tocol(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('TOCOL'), line('TOCOL', false));
    }

    tocolSize(ast: Ast, state: State): ArraySizeType {
      if (ast.args.length < 1 || ast.args.length > 3) return ArraySize.error();
      const size = this.arraySizeForAst(ast.args[0] as Ast, state);
      return new ArraySize(1, size.width * size.height);
    }

    torow(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('TOROW'), line('TOROW', true));
    }

    torowSize(ast: Ast, state: State): ArraySizeType {
      if (ast.args.length < 1 || ast.args.length > 3) return ArraySize.error();
      const size = this.arraySizeForAst(ast.args[0] as Ast, state);
      return new ArraySize(size.width * size.height, 1);
    }
  }

  const names = Object.fromEntries(
    Object.keys(SheetsArrayFunctionsPlugin.implementedFunctions).map((name) => [name, name]),
  );
  HyperFormula.registerFunctionPlugin(SheetsArrayFunctionsPlugin as never, { enGB: names, enUS: names });
  registerRowAndColumn(hf);
  registerUnique(hf);
}

/**
 * A key equal for values HyperFormula's comparison may find equal (text whatever its case and
 * accents, numbers to 12 significant digits); rows with one key are then compared as the library
 * does.
 */
function bucketKey(value: unknown): string {
  if (typeof value === 'string') return `s${value.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()}`;
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'object' && value !== null && 'val' in value
        ? Number((value as { val: unknown }).val)
        : undefined;
  if (number !== undefined) return `n${Number(number.toPrecision(12))}`;
  return `o${String(value)}`;
}

/** UNIQUE over HyperFormula's UniquePlugin, its rows found distinct through a map of keys. */
function registerUnique(hf: HyperFormulaModule): void {
  const { HyperFormula, SimpleRangeValue, CellError, ErrorType } = hf;
  type Metadata = Record<string, unknown>;
  type UniqueBase = (new (...args: never[]) => Plugin) & { implementedFunctions: Record<string, Metadata> };
  const parent = HyperFormula.getFunctionPlugin('UNIQUE') as unknown as UniqueBase | undefined;
  if (!parent) return;
  const own = parent.implementedFunctions;
  class HashedUniquePlugin extends parent {
    static override implementedFunctions = { UNIQUE: own.UNIQUE as Metadata };
    static aliases = {};

    unique(ast: Ast, state: State): unknown {
      const equal = (left: unknown, right: unknown) =>
        (
          this as unknown as { arithmeticHelper: { eq(a: unknown, b: unknown): boolean } }
        ).arithmeticHelper.eq(left, right);
      return this.runFunction(
        ast.args,
        state,
        this.metadata('UNIQUE'),
        (range: unknown, byColumn: boolean, exactlyOnce: boolean) => {
          const data = rowsOf(hf, range);
          for (const row of data) for (const value of row) if (value instanceof CellError) return value;
          const vectors = byColumn ? transpose(data) : data;
          const buckets = new Map<string, number[]>();
          const distinct: unknown[][] = [];
          const counts: number[] = [];
          for (const vector of vectors) {
            const key = vector.map(bucketKey).join('\u0000');
            const bucket = buckets.get(key) ?? [];
            const found = bucket.find((index) =>
              (distinct[index] as unknown[]).every((value, at) => equal(value, vector[at])),
            );
            if (found === undefined) {
              bucket.push(distinct.length);
              buckets.set(key, bucket);
              distinct.push(vector);
              counts.push(1);
            } else counts[found] = (counts[found] ?? 0) + 1;
          }
          const kept = exactlyOnce ? distinct.filter((_, index) => counts[index] === 1) : distinct;
          if (kept.length === 0) return new CellError(ErrorType.NA, 'Empty range not allowed.');
          return SimpleRangeValue.onlyValues((byColumn ? transpose(kept) : kept) as never);
        },
      );
    }
  }
  answerParentMetadata(HashedUniquePlugin, own);
  HyperFormula.registerFunctionPlugin(HashedUniquePlugin as never);
}

const REFERENCE_RANGES = new Set(['CELL_RANGE', 'COLUMN_RANGE', 'ROW_RANGE']);

interface CellReader {
  getScalarValue(address: { sheet: number; row: number; col: number }): unknown;
}

/**
 * ROW, COLUMN and INDEX over HyperFormula's own (its InformationPlugin): ROW and COLUMN number each
 * row or column of a range, INDEX reads its one cell alone.
 */
function registerRowAndColumn(hf: HyperFormulaModule): void {
  const { HyperFormula, ArraySize, SimpleRangeValue, CellError, ErrorType } = hf;
  type Metadata = Record<string, unknown>;
  const information = HyperFormula.getFunctionPlugin('ROW') as unknown as (new (
    ...args: never[]
  ) => Plugin) & { implementedFunctions: Record<string, Metadata> };
  const own = information.implementedFunctions;
  const first = information.prototype as unknown as Record<string, (ast: Ast, state: State) => unknown>;
  /** The range argument's size, when the argument is a range reference. */
  const rangeSize = (plugin: Plugin, ast: Ast, state: State): ArraySizeType | undefined => {
    let arg = ast.args[0];
    while (arg?.type === 'PARENTHESIS') arg = (arg as Ast & { expression: Ast }).expression;
    return arg && ast.args.length === 1 && REFERENCE_RANGES.has(arg.type)
      ? plugin.arraySizeForAst(arg, state)
      : undefined;
  };
  const numbered = (start: unknown, count: number, asRow: boolean) => {
    if (typeof start !== 'number' || count <= 1) return start;
    const numbers = Array.from({ length: count }, (_, index) => start + index);
    return SimpleRangeValue.onlyValues((asRow ? [numbers] : numbers.map((n) => [n])) as never);
  };
  class RangeNumbersPlugin extends information {
    static override implementedFunctions = {
      ROW: { ...own.ROW, sizeOfResultArrayMethod: 'rowSize' },
      COLUMN: { ...own.COLUMN, sizeOfResultArrayMethod: 'columnSize' },
      INDEX: own.INDEX as Metadata,
    };
    // The parent's aliases name functions this subclass does not declare.
    static aliases = {};

    row(ast: Ast, state: State): unknown {
      return numbered(first.row?.call(this, ast, state), rangeSize(this, ast, state)?.height ?? 1, false);
    }

    rowSize(ast: Ast, state: State): ArraySizeType {
      return new ArraySize(1, rangeSize(this, ast, state)?.height ?? 1);
    }

    column(ast: Ast, state: State): unknown {
      return numbered(first.column?.call(this, ast, state), rangeSize(this, ast, state)?.width ?? 1, true);
    }

    columnSize(ast: Ast, state: State): ArraySizeType {
      return new ArraySize(rangeSize(this, ast, state)?.width ?? 1, 1);
    }

    /**
     * INDEX (https://support.google.com/docs/answer/3098242) as HyperFormula's, with the one cell
     * of a range read alone: the library read every cell of the range first, so
     * `=INDEX(Data!C:C, MATCH(A2, Data!A:A, 0))` filled down a long tab grew with the square of its rows.
     */
    index(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('INDEX'),
        (range: SimpleRangeValueType, row: number, column: number) => {
          if (column < 1 || row < 1) return new CellError(ErrorType.VALUE, 'Argument cannot be less than 1.');
          if (column > range.width() || row > range.height())
            return new CellError(ErrorType.NUM, 'Value too large.');
          const cells = range.range;
          if (cells === undefined) return range.data[row - 1]?.[column - 1];
          return (this as unknown as { dependencyGraph: CellReader }).dependencyGraph.getScalarValue({
            sheet: cells.sheet,
            row: cells.start.row + row - 1,
            col: cells.start.col + column - 1,
          });
        },
      );
    }
  }
  answerParentMetadata(RangeNumbersPlugin, own);
  HyperFormula.registerFunctionPlugin(RangeNumbersPlugin as never);
}

function transpose(rows: unknown[][]): unknown[][] {
  const width = Math.max(0, ...rows.map((row) => row.length));
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}
