import type { ToolsetName } from '@sheetgate/proto';
import { explainRangeRefusals } from './kit/range-refusals.ts';
import type { ToolDefinition } from './kit/tool-definition.ts';
import type { ToolDeps } from './kit/tool-deps.ts';
import { chartTools } from './sets/charts/charts.ts';
import { pivotTableTools } from './sets/charts/pivot-tables.ts';
import { cellDetailTools } from './sets/core-read/cell-details.ts';
import { driveSearchTools } from './sets/core-read/drive-search.ts';
import { evaluateFormulaTools } from './sets/core-read/evaluate-formulas.ts';
import { findInSpreadsheetTools } from './sets/core-read/find-in-spreadsheet.ts';
import { getSpreadsheetTools } from './sets/core-read/get-spreadsheet.ts';
import { listChangesTools } from './sets/core-read/list-changes.ts';
import { listSpreadsheetTools } from './sets/core-read/list-spreadsheets.ts';
import { readFormatTools } from './sets/core-read/read-formats.ts';
import { readRangeTools } from './sets/core-read/read-ranges.ts';
import { recordTools } from './sets/core-read/records.ts';
import { noteTools } from './sets/core-write/notes.ts';
import { undoChangeTools } from './sets/core-write/undo-change.ts';
import { valueWriteTools } from './sets/core-write/values.ts';
import { driveFileTools } from './sets/files/drive-files.ts';
import { folderContentTools } from './sets/files/folder-contents.ts';
import { newSpreadsheetTools } from './sets/files/new-spreadsheets.ts';
import { trashFileTools } from './sets/files/trash-file.ts';
import { cellRuleTools } from './sets/rules/cell-rules.ts';
import { filterTools } from './sets/rules/filters.ts';
import { rangeObjectTools } from './sets/rules/range-objects.ts';
import { tableTools } from './sets/rules/tables.ts';
import { commentTools } from './sets/sharing/comments.ts';
import { sharingTools } from './sets/sharing/permissions.ts';
import { autofillTools } from './sets/structure/autofill.ts';
import { cleanUpTools } from './sets/structure/clean-up.ts';
import { copyRangeTools } from './sets/structure/copy-range.ts';
import { copySheetToTools } from './sets/structure/copy-sheet-to.ts';
import { dimensionPropertyTools } from './sets/structure/dimension-properties.ts';
import { dimensionTools } from './sets/structure/dimensions.ts';
import { findReplaceTools } from './sets/structure/find-replace.ts';
import { freezeTools } from './sets/structure/freeze.ts';
import { mergeTools } from './sets/structure/merges.ts';
import { sheetTools } from './sets/structure/sheets.ts';
import { sortRangeTools } from './sets/structure/sort-range.ts';

/**
 * The tool registry (docs/design.md §11): every tool, in the order tools/list shows them. Each
 * definition names its own toolset; what lists tools by name or by set (toolsets.ts, the tests)
 * reads it from here.
 */
export function sheetgateTools(deps: ToolDeps): ToolDefinition[] {
  return [
    ...listSpreadsheetTools(deps),
    ...getSpreadsheetTools(deps),
    ...readRangeTools(deps),
    ...findInSpreadsheetTools(deps),
    ...evaluateFormulaTools(deps),
    ...recordTools(deps),
    ...cellDetailTools(deps),
    ...readFormatTools(deps),
    ...noteTools(deps),
    ...valueWriteTools(deps),
    ...explainRangeRefusals(deps, dimensionTools(deps)),
    ...listChangesTools(deps),
    ...undoChangeTools(deps),
    ...explainRangeRefusals(deps, sheetTools(deps)),
    ...cellRuleTools(deps),
    ...rangeObjectTools(deps),
    ...chartTools(deps),
    ...pivotTableTools(deps),
    ...filterTools(deps),
    ...tableTools(deps),
    ...copyRangeTools(deps),
    ...autofillTools(deps),
    ...sortRangeTools(deps),
    ...findReplaceTools(deps),
    ...cleanUpTools(deps),
    ...mergeTools(deps),
    ...freezeTools(deps),
    ...dimensionPropertyTools(deps),
    ...explainRangeRefusals(deps, copySheetToTools(deps)),
    ...newSpreadsheetTools(deps),
    ...driveSearchTools(deps),
    ...driveFileTools(deps),
    ...folderContentTools(deps),
    ...trashFileTools(deps),
    ...sharingTools(deps),
    ...commentTools(deps),
  ];
}

/**
 * The registered tools as definitions only, to read names and sets without a person or Google:
 * built once with no clients, which a definition only closes over and never calls until it runs.
 */
let definitions: readonly ToolDefinition[] | undefined;
export function registeredTools(): readonly ToolDefinition[] {
  definitions ??= sheetgateTools({} as ToolDeps);
  return definitions;
}

/** The set of the registered tool of that name; undefined for a name no tool has (one from another release). */
export function toolsetOf(tool: string): ToolsetName | undefined {
  return registeredTools().find((definition) => definition.name === tool)?.toolset;
}
