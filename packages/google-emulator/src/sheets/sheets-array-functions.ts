/**
 * Sheets' array functions HyperFormula lacks, added as function plugins (Google's function list:
 * https://support.google.com/docs/table/25273):
 * - FLATTEN (https://support.google.com/docs/answer/10307761): the values of its ranges in one
 *   column, row by row;
 * - CHOOSECOLS (https://support.google.com/docs/answer/13197914) and CHOOSEROWS: columns or rows
 *   picked by number, a negative one counted from the end;
 * - TOCOL and TOROW: an array in one column or row, by row or by column, blanks or errors left
 *   out on request (ignore 1 blanks, 2 errors, 3 both).
 * Registered once, on HyperFormula's first load (formulas.ts).
 */
import type { ArraySize as ArraySizeType } from 'hyperformula';
import { type Ast, type HyperFormulaModule, pluginBase, rowsOf, type State } from './function-plugin-base.ts';

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
}

function transpose(rows: unknown[][]): unknown[][] {
  const width = Math.max(0, ...rows.map((row) => row.length));
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}
