/**
 * Sheets' text functions HyperFormula lacks or defines otherwise, added as function plugins
 * (Google's function list: https://support.google.com/docs/table/25273):
 * - JOIN (https://support.google.com/docs/answer/3094077): values and one-dimensional arrays
 *   joined by a delimiter, empty cells included;
 * - SPLIT (https://support.google.com/docs/answer/3094136): text split at each character of the
 *   delimiter (or at the whole delimiter), spilled across a row; HyperFormula's SPLIT(text, index)
 *   gives one piece;
 * - REGEXMATCH, REGEXEXTRACT, REGEXREPLACE (https://support.google.com/docs/answer/3098292,
 *   /3098244, /3098245), over JavaScript regular expressions: Google's are RE2's, which JavaScript
 *   reads alike but for RE2's own syntax (README-sheets.md);
 * - TO_TEXT (https://support.google.com/docs/answer/3094285);
 * - ISBETWEEN (https://support.google.com/docs/answer/10538337);
 * - TEXT (https://support.google.com/docs/answer/3094139) with Sheets' number-format patterns
 *   (number-format.ts): `%` multiplies by 100, `#,##0` groups thousands, a comma after the digits
 *   divides by a thousand, `mmm` and `dddd` name the month and day, `@` stands for text, quoted
 *   text is kept; HyperFormula's TEXT reads only a few date and decimal codes.
 * Registered once, on HyperFormula's first load (formulas.ts).
 */
import type { ArraySize as ArraySizeType } from 'hyperformula';
import {
  type Ast,
  firstError,
  type HyperFormulaModule,
  pluginBase,
  rowsOf,
  type State,
  textOf,
} from './function-plugin-base.ts';
import { formatAutomatic, formatWithPattern } from './number-format.ts';

/** How many pieces a SPLIT of text not known before evaluation (a cell's) can spill into. */
const SPLIT_WIDTH = 50;

export function registerSheetsTextFunctions(hf: HyperFormulaModule): void {
  const {
    HyperFormula,
    FunctionArgumentType,
    ArraySize,
    SimpleRangeValue,
    CellError,
    ErrorType,
    EmptyValue,
  } = hf;
  const text = (value: unknown) => textOf(hf, value);
  const isText = (value: unknown) => typeof value === 'string';
  const notText = (name: string, parameter: number, value: unknown) =>
    new CellError(
      ErrorType.VALUE,
      `Function ${name} parameter ${parameter} expects text values. But '${text(value)}' is a ${
        typeof value === 'boolean' ? 'boolean' : 'number'
      } and cannot be coerced to a text.`,
    );
  const regex = (name: string, source: string, flags = ''): RegExp | InstanceType<typeof CellError> => {
    // RE2's leading (?i) reads as JavaScript's i flag.
    const caseless = /^\(\?i\)/.exec(source);
    try {
      return new RegExp(caseless ? source.slice(4) : source, flags + (caseless ? 'i' : ''));
    } catch {
      return new CellError(
        ErrorType.REF,
        `Function ${name} parameter 2 value "${source}" is not a valid regular expression.`,
      );
    }
  };
  const literal = (ast: Ast | undefined): string | undefined =>
    ast?.type === 'STRING' ? String(ast.value) : undefined;

  class SheetsTextFunctionsPlugin extends pluginBase(hf) {
    static implementedFunctions = {
      JOIN: {
        method: 'join',
        parameters: [
          { argumentType: FunctionArgumentType.STRING },
          { argumentType: FunctionArgumentType.ANY },
        ],
        repeatLastArgs: 1,
      },
      SPLIT: {
        method: 'split',
        sizeOfResultArrayMethod: 'splitSize',
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.STRING },
          { argumentType: FunctionArgumentType.STRING },
          { argumentType: FunctionArgumentType.BOOLEAN, defaultValue: true },
          { argumentType: FunctionArgumentType.BOOLEAN, defaultValue: true },
        ],
      },
      REGEXMATCH: {
        method: 'regexmatch',
        parameters: [
          { argumentType: FunctionArgumentType.SCALAR },
          { argumentType: FunctionArgumentType.STRING },
        ],
      },
      REGEXEXTRACT: {
        method: 'regexextract',
        sizeOfResultArrayMethod: 'regexextractSize',
        vectorizationForbidden: true,
        parameters: [
          { argumentType: FunctionArgumentType.SCALAR },
          { argumentType: FunctionArgumentType.STRING },
        ],
      },
      REGEXREPLACE: {
        method: 'regexreplace',
        parameters: [
          { argumentType: FunctionArgumentType.SCALAR },
          { argumentType: FunctionArgumentType.STRING },
          { argumentType: FunctionArgumentType.STRING },
        ],
      },
      TO_TEXT: { method: 'toText', parameters: [{ argumentType: FunctionArgumentType.SCALAR }] },
      TEXT: {
        method: 'text',
        parameters: [
          { argumentType: FunctionArgumentType.SCALAR },
          { argumentType: FunctionArgumentType.STRING },
        ],
      },
      ISBETWEEN: {
        method: 'isbetween',
        parameters: [
          { argumentType: FunctionArgumentType.SCALAR },
          { argumentType: FunctionArgumentType.SCALAR },
          { argumentType: FunctionArgumentType.SCALAR },
          { argumentType: FunctionArgumentType.BOOLEAN, defaultValue: true },
          { argumentType: FunctionArgumentType.BOOLEAN, defaultValue: true },
        ],
      },
    };

    join(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('JOIN'),
        (delimiter: string, ...values: unknown[]) => {
          const parts: string[] = [];
          for (const value of values) {
            const rows = rowsOf(hf, value);
            if (rows.length > 1 && (rows[0]?.length ?? 0) > 1)
              return new CellError(
                ErrorType.VALUE,
                'Function JOIN parameter 2 requires a single row or a single column.',
              );
            const cells = rows.flat();
            const error = firstError(hf, cells);
            if (error) return error;
            parts.push(...cells.map(text));
          }
          return parts.join(delimiter);
        },
      );
    }

    split(ast: Ast, state: State): unknown {
      const size = this.splitSize(ast, state);
      return this.runFunction(
        ast.args,
        state,
        this.metadata('SPLIT'),
        (value: string, delimiter: string, byEach: boolean, removeEmpty: boolean) => {
          if (delimiter === '')
            return new CellError(ErrorType.VALUE, 'Function SPLIT parameter 2 value should be non-empty.');
          const pieces = splitText(value, delimiter, byEach, removeEmpty);
          if (pieces.length === 0) return new CellError(ErrorType.VALUE, 'SPLIT has no pieces to show.');
          return SimpleRangeValue.onlyValues([
            pieces.slice(0, size.width).map((piece) => (piece === '' ? EmptyValue : splitValue(piece))),
          ] as never);
        },
      );
    }

    /** As many pieces as a literal text has, or SPLIT_WIDTH for text known only on evaluation. */
    splitSize(ast: Ast, _state: State): ArraySizeType {
      if (ast.args.length < 2 || ast.args.length > 4) return ArraySize.error();
      const value = literal(ast.args[0]);
      const delimiter = literal(ast.args[1]);
      if (value === undefined || delimiter === undefined || delimiter === '' || ast.args.length > 2)
        return new ArraySize(SPLIT_WIDTH, 1);
      return new ArraySize(Math.max(1, splitText(value, delimiter, true, true).length), 1);
    }

    regexmatch(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('REGEXMATCH'),
        (value: unknown, source: string) => {
          if (!isText(value) && value !== EmptyValue) return notText('REGEXMATCH', 1, value);
          const pattern = regex('REGEXMATCH', source);
          return pattern instanceof CellError ? pattern : pattern.test(text(value));
        },
      );
    }

    regexextract(ast: Ast, state: State): unknown {
      const size = this.regexextractSize(ast, state);
      return this.runFunction(
        ast.args,
        state,
        this.metadata('REGEXEXTRACT'),
        (value: unknown, source: string) => {
          if (!isText(value) && value !== EmptyValue) return notText('REGEXEXTRACT', 1, value);
          const pattern = regex('REGEXEXTRACT', source);
          if (pattern instanceof CellError) return pattern;
          const match = pattern.exec(text(value));
          if (!match)
            return new CellError(
              ErrorType.NA,
              `Function REGEXEXTRACT parameter 2 value "${source}" does not match text of Function REGEXEXTRACT parameter 1 value "${text(value)}".`,
            );
          // With capture groups, each group's text in a column of its own; without, the whole match.
          const groups = match.length > 1 ? match.slice(1) : [match[0]];
          return SimpleRangeValue.onlyValues([
            groups.slice(0, size.width).map((group) => (group === undefined ? EmptyValue : group)),
          ] as never);
        },
      );
    }

    /** One column per capture group of a literal expression; as many as a computed one can have is not known, so one. */
    regexextractSize(ast: Ast, _state: State): ArraySizeType {
      if (ast.args.length !== 2) return ArraySize.error();
      const source = literal(ast.args[1]);
      if (source === undefined) return ArraySize.scalar();
      try {
        const groups = new RegExp(`${source.replace(/^\(\?i\)/, '')}|`).exec('')?.length ?? 1;
        return new ArraySize(Math.max(1, groups - 1), 1);
      } catch {
        return ArraySize.scalar();
      }
    }

    regexreplace(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('REGEXREPLACE'),
        (value: unknown, source: string, replacement: string) => {
          if (!isText(value) && value !== EmptyValue) return notText('REGEXREPLACE', 1, value);
          const pattern = regex('REGEXREPLACE', source, 'g');
          return pattern instanceof CellError ? pattern : text(value).replace(pattern, replacement);
        },
      );
    }

    toText(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('TO_TEXT'), (value: unknown) => text(value));
    }

    text(ast: Ast, state: State): unknown {
      return this.runFunction(ast.args, state, this.metadata('TEXT'), (value: unknown, format: string) => {
        if (value instanceof CellError) return value;
        // Text that reads as a number or date is formatted as one; other text, and TRUE or FALSE,
        // only fills the format's `@`.
        const number =
          value === EmptyValue
            ? 0
            : typeof value === 'boolean'
              ? undefined
              : this.coerceScalarToNumberOrError(value as never);
        if (typeof number !== 'number') return textInFormat(text(value), format);
        const numeric = format.split(';')[0] ?? '';
        if (numeric.includes('@') && !/[0#?yMmdDhHs]/.test(numeric.replace(/"[^"]*"/g, '')))
          return textInFormat(formatAutomatic(number), numeric);
        return formatWithPattern(number, format);
      });
    }

    isbetween(ast: Ast, state: State): unknown {
      return this.runFunction(
        ast.args,
        state,
        this.metadata('ISBETWEEN'),
        (value: unknown, lower: unknown, upper: unknown, lowerIncluded: boolean, upperIncluded: boolean) => {
          const [v, low, high] = [value, lower, upper].map(comparable);
          if (
            v === undefined ||
            low === undefined ||
            high === undefined ||
            typeof v !== typeof low ||
            typeof v !== typeof high
          )
            return new CellError(
              ErrorType.VALUE,
              'Function ISBETWEEN parameter 1 expects a value of the same type as the lower and upper values.',
            );
          const above = lowerIncluded ? v >= low : v > low;
          const below = upperIncluded ? v <= high : v < high;
          return above && below;
        },
      );
    }
  }

  /** A value ISBETWEEN can order: a number, or text compared without case. */
  const comparable = (value: unknown): number | string | undefined => {
    if (typeof value === 'number') return value;
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value === 'string') return value.toLowerCase();
    if (typeof value === 'object' && value !== null && 'val' in value)
      return Number((value as { val: unknown }).val);
    return undefined;
  };

  const names = Object.fromEntries(
    Object.keys(SheetsTextFunctionsPlugin.implementedFunctions).map((name) => [name, name]),
  );
  HyperFormula.registerFunctionPlugin(SheetsTextFunctionsPlugin as never, { enGB: names, enUS: names });
}

/** Text in a format's text section (its fourth, or its only one): `@` is the text, quoted text kept. */
function textInFormat(value: string, format: string): string {
  const sections = format.split(';');
  const section = sections.length >= 4 ? (sections[3] ?? '') : (sections[0] ?? '');
  if (!section.includes('@')) return value;
  return section.replace(/"([^"]*)"|@/g, (_, quoted: string | undefined) => quoted ?? value);
}

/** SPLIT's pieces: at each character of the delimiter, or at the whole of it. */
function splitText(value: string, delimiter: string, byEach: boolean, removeEmpty: boolean): string[] {
  const pieces = byEach
    ? value.split(
        new RegExp(
          `[${[...delimiter].map((char) => `\\u{${char.codePointAt(0)?.toString(16)}}`).join('')}]`,
          'u',
        ),
      )
    : value.split(delimiter);
  return removeEmpty ? pieces.filter((piece) => piece !== '') : pieces;
}

/** A piece of SPLIT's result: a number where the text is one, as Sheets reads it. */
function splitValue(piece: string): string | number {
  return /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(piece) ? Number(piece) : piece;
}
