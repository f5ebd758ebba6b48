/**
 * What the Sheets function plugins (sheets-text-functions.ts, sheets-array-functions.ts) use of
 * HyperFormula's FunctionPlugin beyond its typed surface
 * (https://hyperformula.handsontable.com/guide/custom-functions.html): a plugin class must extend
 * the FunctionPlugin of the runtime formulas.ts loads, so the base is taken from that module.
 */
import type { ArraySize, FunctionPlugin, SimpleRangeValue } from 'hyperformula';

export type HyperFormulaModule = typeof import('hyperformula');
export type Ast = { type: string; value?: unknown; args: Ast[] };
export type State = unknown;

export type Plugin = FunctionPlugin & {
  runFunction: (args: Ast[], state: State, metadata: unknown, fn: (...args: never[]) => unknown) => unknown;
  metadata: (name: string) => unknown;
  arraySizeForAst: (ast: Ast, state: State) => ArraySize;
  /** A value as a number (text that reads as a number or date, TRUE as 1), or a CellError. */
  coerceScalarToNumberOrError: (value: never) => unknown;
};

export function pluginBase(hf: HyperFormulaModule): new (...args: never[]) => Plugin {
  return hf.FunctionPlugin as unknown as new (
    ...args: never[]
  ) => Plugin;
}

/**
 * Makes a subclass of one of HyperFormula's plugins, declaring some of its functions anew, answer
 * for the metadata of the parent's other functions too: HyperFormula runs every function of the
 * parent (INDEX beside ROW) on the subclass's instance once there is one
 * (FunctionRegistry.initializePlugins reuses any instance of the class it registered).
 */
export function answerParentMetadata(
  subclass: { prototype: object; implementedFunctions: Record<string, unknown> },
  parentFunctions: Record<string, unknown>,
): void {
  Object.defineProperty(subclass.prototype, 'metadata', {
    value(name: string): unknown {
      const metadata = subclass.implementedFunctions[name] ?? parentFunctions[name];
      if (metadata === undefined) throw new Error(`No metadata for function ${name}.`);
      return metadata;
    },
  });
}

/** The rows of a range argument, or one row of one value for a scalar. */
export function rowsOf(hf: HyperFormulaModule, value: unknown): unknown[][] {
  return value instanceof hf.SimpleRangeValue ? (value as SimpleRangeValue).data : [[value]];
}

/** A value as Sheets writes it into text: TRUE and FALSE upper case, an empty cell as nothing. */
export function textOf(hf: HyperFormulaModule, value: unknown): string {
  if (value === hf.EmptyValue || value === undefined || value === null) return '';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'object' && 'val' in value) return String((value as { val: unknown }).val);
  return String(value);
}

/** The first CellError among the values, which a function gives back as its result. */
export function firstError(hf: HyperFormulaModule, values: Iterable<unknown>): unknown {
  for (const value of values) if (value instanceof hf.CellError) return value;
  return undefined;
}
