/**
 * What a cell shows: its effective value (a formula's result, or what was entered), its
 * formatted text, and the value a `valueRenderOption` / `dateTimeRenderOption` asks for.
 */

import type { GridBounds } from './a1-notation.ts';
import type { Evaluation } from './formulas.ts';
import { errorText } from './formulas.ts';
import { cellAt, storedCellsIn } from './grid.ts';
import type { CellData, ExtendedValue, NumberFormat, SheetModel } from './model.ts';
import { formatNumber, isDateType } from './number-format.ts';

export type ValueRenderOption = 'FORMATTED_VALUE' | 'UNFORMATTED_VALUE' | 'FORMULA';
export type DateTimeRenderOption = 'SERIAL_NUMBER' | 'FORMATTED_STRING';

export interface RenderOptions {
  valueRenderOption: ValueRenderOption;
  dateTimeRenderOption: DateTimeRenderOption;
}

export type RenderedValue = string | number | boolean;

export interface EffectiveCell {
  effectiveValue?: ExtendedValue;
  /** The cell's own number format, or the one Sheets picks automatically for a formula result. */
  numberFormat?: NumberFormat;
}

export function effectiveCell(
  evaluation: Evaluation,
  sheetIndex: number,
  row: number,
  column: number,
  cell: CellData | undefined,
): EffectiveCell {
  const entered = cell?.userEnteredValue;
  const ownFormat = cell?.userEnteredFormat?.numberFormat ?? undefined;
  // A cell without a value may hold what an array formula beside it spilled.
  if (!entered || entered.formulaValue != null) {
    const result = evaluation.formulaResult(sheetIndex, row, column);
    if (!entered && !result) return {};
    const numberFormat = ownFormat ?? result?.autoFormat;
    return {
      ...(result?.effectiveValue ? { effectiveValue: result.effectiveValue } : {}),
      ...(numberFormat ? { numberFormat } : {}),
    };
  }
  return { effectiveValue: entered, ...(ownFormat ? { numberFormat: ownFormat } : {}) };
}

/**
 * The cells of `bounds` that may show something: the stored ones, then the positions an array
 * result spilled into that store nothing.
 */
export function* shownCellsIn(
  evaluation: Evaluation,
  sheet: SheetModel,
  sheetIndex: number,
  bounds: GridBounds,
): Generator<[row: number, column: number, CellData | undefined]> {
  yield* storedCellsIn(sheet, bounds);
  for (const [row, column] of evaluation.spilledCells(sheetIndex)) {
    const inside =
      row >= bounds.startRow &&
      row < bounds.endRow &&
      column >= bounds.startColumn &&
      column < bounds.endColumn;
    if (inside && !cellAt(sheet, row, column)) yield [row, column, undefined];
  }
}

/** The text Sheets displays for a value. */
export function formattedValue(effective: EffectiveCell): string | undefined {
  const value = effective.effectiveValue;
  if (!value) return undefined;
  if (value.numberValue != null) return formatNumber(value.numberValue, effective.numberFormat);
  if (value.boolValue != null) return value.boolValue ? 'TRUE' : 'FALSE';
  if (value.stringValue != null) return value.stringValue;
  if (value.errorValue != null) return errorText(value.errorValue.type);
  return undefined;
}

/** A cell's value for the values API, or undefined for an empty cell. */
export function renderCell(
  effective: EffectiveCell,
  cell: CellData | undefined,
  options: RenderOptions,
): RenderedValue | undefined {
  const formula = cell?.userEnteredValue?.formulaValue;
  if (options.valueRenderOption === 'FORMULA' && formula != null) return formula;
  const text = formattedValue(effective);
  if (text === undefined) return undefined;
  if (options.valueRenderOption === 'FORMATTED_VALUE') return text;
  const value = effective.effectiveValue as ExtendedValue;
  if (value.numberValue != null) {
    const isDate = isDateType(effective.numberFormat);
    return isDate && options.dateTimeRenderOption === 'FORMATTED_STRING' ? text : value.numberValue;
  }
  if (value.boolValue != null) return value.boolValue;
  return text;
}
