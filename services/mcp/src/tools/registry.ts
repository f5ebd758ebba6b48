import { cellTools } from './cell-tools.ts';
import { changeTools } from './change-tools.ts';
import { chartTools } from './chart-tools.ts';
import { commentTools, driveTools, sharingTools } from './drive-tools.ts';
import { editingTools } from './editing-tools.ts';
import { fileTools } from './file-tools.ts';
import { filterTools } from './filter-tools.ts';
import { rangeObjectTools } from './range-object-tools.ts';
import { readTools } from './read-tools.ts';
import { recordTools } from './record-tools.ts';
import { ruleTools } from './rule-tools.ts';
import { sheetTools } from './sheet-tools.ts';
import { tableTools } from './table-tools.ts';
import type { ToolDefinition } from './tool-definition.ts';
import type { ToolDeps } from './tool-deps.ts';
import { writeTools } from './write-tools.ts';

/** The tool registry (docs/design.md §11): every tool, in the order tools/list shows them. */
export function sheetgateTools(deps: ToolDeps): ToolDefinition[] {
  return [
    ...readTools(deps),
    ...recordTools(deps),
    ...cellTools(deps),
    ...writeTools(deps),
    ...changeTools(deps),
    ...sheetTools(deps),
    ...ruleTools(deps),
    ...rangeObjectTools(deps),
    ...chartTools(deps),
    ...filterTools(deps),
    ...tableTools(deps),
    ...editingTools(deps),
    ...fileTools(deps),
    ...driveTools(deps),
    ...sharingTools(deps),
    ...commentTools(deps),
  ];
}
