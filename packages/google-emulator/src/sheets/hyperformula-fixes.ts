/**
 * Repairs to HyperFormula's internals, made once when it loads. The first keeps one formula from
 * taking its spreadsheet down:
 *
 * - A formula whose evaluation throws (a range inside an array literal, `={SUM(A1:A2),1}`, which
 *   the library never joins to its graph; a plugin's own fault) ended the whole evaluation, and so
 *   every request on the spreadsheet. It now evaluates to an `#ERROR!` in its own cell, as a
 *   formula Sheets cannot compute shows, and every other formula evaluates as before.
 *
 * The others are for tabs where many formulas read the same range — the shape of per-row
 * formulas over whole columns (`=COUNTIF(A:A,A2)`, `=IF(C2>AVERAGEIF(A:A,A2,C:C)+3*STDEV(C:C),…)`
 * filled down), which made its cost grow with the square of the rows. Each leaves every result as it was (the emulator's formula tests hold them)
 * and is written here because the library has no setting for it (checked up to 3.5.0, the version
 * package.json pins; the internals they replace are read from its CommonJS build by path):
 *
 * - Building the dependency graph, each formula reading a range joined every cell of the range to
 *   the range's vertex again, though the first formula had done it: a no-op per cell, repeated for
 *   every formula. A range already joined to its cells is now only joined to the new formula.
 * - COUNTIF, SUMIF, AVERAGEIF and their -S forms keep, per range, the result for each criterion;
 *   a criterion not yet seen replaced those kept results instead of adding to them, so formulas
 *   whose criteria alternate scanned the range every time. The results kept stay (the engine
 *   clears them whenever a cell of the range changes) and the new one is added.
 * - A criterion not yet seen is counted over the range with plain loops over its values, where
 *   the library stepped through generators and split iterators for every cell, many times slower
 *   on the whole columns these formulas read (the same cells, criteria and order of adding up).
 */
import { createRequire } from 'node:module';
import path from 'node:path';

interface RangeLike {
  start: unknown;
  end: unknown;
}
interface RangeVertexLike {
  idInGraph?: number;
  getCriterionFunctionValues(cacheKey: string): Map<string, unknown>;
}
interface DependencyGraphLike {
  graph: { addEdge(from: number, to: number): void };
  getRange(start: unknown, end: unknown): RangeVertexLike | undefined;
}
type ProcessCellDependencies = (
  this: DependencyGraphLike,
  dependencies: unknown[],
  endVertex: { idInGraph?: number },
) => void;
interface ConditionLike {
  conditionRange: { valuesFromTopLeftCorner(): unknown[] };
  criterionPackage: { lambda: (value: unknown) => boolean };
}
interface CriterionComputeLike {
  dependencyGraph: DependencyGraphLike;
  reduceInitialValue: unknown;
  composeFunction: (accumulated: unknown, value: unknown) => unknown;
  mapFunction: (value: unknown) => unknown;
}
type EvaluateRangeValue = (
  this: CriterionComputeLike,
  valuesRange: { valuesFromTopLeftCorner(): unknown[] },
  conditions: ConditionLike[],
) => unknown;
type BuildNewCriterionCache = (
  this: { dependencyGraph: DependencyGraphLike },
  cacheKey: string,
  conditionRanges: RangeLike[],
  valuesRange: RangeLike,
) => Map<string, unknown>;

let applied = false;

export function repairHyperFormula(): void {
  if (applied) return;
  applied = true;
  const require = createRequire(import.meta.url);
  const root = path.dirname(require.resolve('hyperformula'));
  const internal = <T>(file: string) => require(path.join(root, file)) as T;
  const { DependencyGraph } = internal<{
    DependencyGraph: { prototype: { processCellDependencies: ProcessCellDependencies } };
  }>('DependencyGraph/DependencyGraph.js');
  const { AbsoluteCellRange } = internal<{ AbsoluteCellRange: new (...args: never[]) => RangeLike }>(
    'AbsoluteCellRange.js',
  );
  const { CriterionFunctionCompute } = internal<{
    CriterionFunctionCompute: {
      prototype: { buildNewCriterionCache: BuildNewCriterionCache; evaluateRangeValue: EvaluateRangeValue };
    };
  }>('interpreter/CriterionFunctionCompute.js');
  const { Evaluator } = internal<{
    Evaluator: { prototype: { evaluateAstToCellValue: (ast: unknown, state: unknown) => unknown } };
  }>('Evaluator.js');
  const { CellError, ErrorType } = internal<{
    CellError: new (type: string, message?: string) => unknown;
    ErrorType: { ERROR: string };
  }>('Cell.js');
  const { getRawValue } = internal<{ getRawValue: (value: unknown) => unknown }>(
    'interpreter/InterpreterValue.js',
  );

  // Every formula is evaluated through here: at a build, after a change, and by calculateFormula.
  const evaluateAstToCellValue = Evaluator.prototype.evaluateAstToCellValue;
  Evaluator.prototype.evaluateAstToCellValue = function (ast, state) {
    try {
      return evaluateAstToCellValue.call(this, ast, state);
    } catch (error) {
      return new CellError(ErrorType.ERROR, error instanceof Error ? error.message : String(error));
    }
  };

  // A range's vertex is joined to its cells in the call that adds it to the graph (the engine's
  // structural operations keep those edges), so one already in the graph needs no joining.
  const processCellDependencies = DependencyGraph.prototype.processCellDependencies;
  DependencyGraph.prototype.processCellDependencies = function (dependencies, endVertex) {
    let rest: unknown[] | undefined;
    for (const [index, dependency] of dependencies.entries()) {
      if (dependency instanceof AbsoluteCellRange && endVertex.idInGraph !== undefined) {
        const vertex = this.getRange(dependency.start, dependency.end);
        if (vertex?.idInGraph !== undefined) {
          rest ??= dependencies.slice(0, index);
          this.graph.addEdge(vertex.idInGraph, endVertex.idInGraph);
          continue;
        }
      }
      rest?.push(dependency);
    }
    processCellDependencies.call(this, rest ?? dependencies, endVertex);
  };

  const buildNewCriterionCache = CriterionFunctionCompute.prototype.buildNewCriterionCache;
  CriterionFunctionCompute.prototype.buildNewCriterionCache = function (
    cacheKey,
    conditionRanges,
    valuesRange,
  ) {
    const kept = this.dependencyGraph
      .getRange(valuesRange.start, valuesRange.end)
      ?.getCriterionFunctionValues(cacheKey);
    if (kept !== undefined && kept.size > 0) return new Map(kept);
    return buildNewCriterionCache.call(this, cacheKey, conditionRanges, valuesRange);
  };

  CriterionFunctionCompute.prototype.evaluateRangeValue = function (valuesRange, conditions) {
    const values = valuesRange.valuesFromTopLeftCorner();
    const tested = conditions.map((condition) => condition.conditionRange.valuesFromTopLeftCorner());
    const criteria = conditions.map((condition) => condition.criterionPackage.lambda);
    // As the library's: cells counted in order until the shortest of the ranges ends.
    const length = Math.min(values.length, ...tested.map((cells) => cells.length));
    let accumulated = this.reduceInitialValue;
    for (let index = 0; index < length; index++) {
      let chosen = true;
      for (let condition = 0; condition < criteria.length && chosen; condition++)
        chosen = (criteria[condition] as (value: unknown) => boolean)(
          getRawValue(tested[condition]?.[index]),
        );
      if (chosen) accumulated = this.composeFunction(accumulated, this.mapFunction(values[index]));
    }
    return accumulated;
  };
}
