/**
 * Two functions that throw inside HyperFormula, for tests that one formula's fault cannot take its
 * spreadsheet down: TESTTHROW() throws while it is evaluated, TESTTHROWSIZE() while the engine
 * sizes its result, which it does when the formula joins the graph (a build or a cell set). They
 * are registered on the HyperFormula runtime formulas.ts loads (its CommonJS build).
 */
import { createRequire } from 'node:module';

const hf = createRequire(new URL('../../src/sheets/formulas.ts', import.meta.url))(
  'hyperformula',
) as typeof import('hyperformula');

class ThrowingFunctions extends hf.FunctionPlugin {
  static override implementedFunctions = {
    TESTTHROW: { method: 'fault', parameters: [] },
    TESTTHROWSIZE: { method: 'fault', parameters: [], sizeOfResultArrayMethod: 'faultSize' },
  };
  fault(): never {
    throw new Error('a plugin fault');
  }
  faultSize(): never {
    throw new Error('a plugin fault while sizing');
  }
}

let registered = false;

export function registerThrowingFunctions(): void {
  if (registered) return;
  registered = true;
  const names = { TESTTHROW: 'TESTTHROW', TESTTHROWSIZE: 'TESTTHROWSIZE' };
  hf.HyperFormula.registerFunctionPlugin(ThrowingFunctions as never, { enGB: names, enUS: names });
}
