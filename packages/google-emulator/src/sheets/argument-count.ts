/**
 * Google's message for a function given too few or too many arguments, where HyperFormula says only
 * "Wrong number of arguments.": "Wrong number of arguments to VLOOKUP. Expected between 3 and 4
 * arguments, but got 2 arguments." The counts are those HyperFormula's function metadata declares.
 */
import type { HyperFormula } from 'hyperformula';

type Registry = Pick<typeof HyperFormula, 'getFunctionPlugin'>;
interface Parameter {
  optionalArg?: boolean;
  defaultValue?: unknown;
}
interface Metadata {
  parameters?: Parameter[];
  repeatLastArgs?: number;
}

/** The calls of a formula, outermost first, each with its name and number of arguments. */
function calls(formula: string): Array<{ name: string; count: number }> {
  const found: Array<{ name: string; count: number }> = [];
  const open: Array<{ name: string; count: number; empty: boolean }> = [];
  let index = 0;
  while (index < formula.length) {
    const char = formula[index] as string;
    if (char === '"' || char === "'") {
      const end = formula.indexOf(char, index + 1);
      index = end < 0 ? formula.length : end + 1;
      if (open.length > 0) (open[open.length - 1] as { empty: boolean }).empty = false;
      continue;
    }
    const name = /^[A-Za-z_][\w.]*(?=\s*\()/.exec(formula.slice(index))?.[0];
    if (name && !/[\w.$]/.test(formula[index - 1] ?? '')) {
      if (open.length > 0) (open[open.length - 1] as { empty: boolean }).empty = false;
      const call = { name: name.toUpperCase(), count: 0, empty: true };
      open.push(call);
      found.push(call);
      index = formula.indexOf('(', index) + 1;
      continue;
    }
    const current = open[open.length - 1];
    if ((char === '(' || char === '{') && current) open.push({ name: '', count: 0, empty: true });
    else if ((char === ')' || char === '}') && current) {
      current.count = current.empty ? current.count : current.count + 1;
      open.pop();
      if (open.length > 0) (open[open.length - 1] as { empty: boolean }).empty = false;
    } else if (char === ',' && current) {
      current.count++;
      current.empty = false;
    } else if (current && !/\s/.test(char)) current.empty = false;
    index++;
  }
  return found.filter((call) => call.name !== '');
}

export function argumentCountMessage(formula: string, registry: Registry): string | undefined {
  for (const call of calls(formula)) {
    // The emulator gives IMPORTRANGE its spreadsheet as one more argument (import-range.ts).
    if (call.name === 'IMPORTRANGE') call.count++;
    const plugin = registry.getFunctionPlugin(call.name) as
      | { implementedFunctions?: Record<string, Metadata> }
      | undefined;
    const metadata = plugin?.implementedFunctions?.[call.name];
    if (!metadata) continue;
    const parameters = metadata.parameters ?? [];
    const least = parameters.filter(
      (parameter) => !parameter.optionalArg && parameter.defaultValue === undefined,
    ).length;
    const most = metadata.repeatLastArgs ? Number.POSITIVE_INFINITY : parameters.length;
    if (call.count >= least && call.count <= most) continue;
    const expected =
      most === Number.POSITIVE_INFINITY
        ? `at least ${least}`
        : least === most
          ? `${least}`
          : `between ${least} and ${most}`;
    return `Wrong number of arguments to ${call.name}. Expected ${expected} arguments, but got ${call.count} arguments.`;
  }
  return undefined;
}
