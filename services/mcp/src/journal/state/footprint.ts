import type { sheets_v4 } from 'googleapis';
import { FootprintBuilder } from './footprint-builder.ts';
import { REQUEST_FOOTPRINTS } from './footprint-requests.ts';
import type { Footprint } from './state-image.ts';

/**
 * The parts of a spreadsheet a `spreadsheets.batchUpdate` may change, read from its requests alone
 * (docs/design.md §11.8): cell areas with the cell fields they write, rows or columns sized, tab
 * aspects (objects named only by id are looked for on every tab), named ranges, and whether tabs
 * are added. A request kind whose change cannot be taken back from such a footprint makes the
 * whole batch unsupported, with the reason (and the tool that does that change with its own undo).
 */
export function footprintOf(
  requests: readonly sheets_v4.Schema$Request[],
): Footprint | { unsupported: string } {
  const print = new FootprintBuilder();
  for (const [index, request] of requests.entries()) {
    const kind = Object.keys(request).find((key) => (request as Record<string, unknown>)[key] != null);
    const body = kind ? (request as Record<string, unknown>)[kind] : undefined;
    const map = kind ? REQUEST_FOOTPRINTS[kind] : undefined;
    if (!kind || !map) return { unsupported: unsupportedKind(index, kind) };
    const problem = map(body as never, print);
    if (problem) return { unsupported: `request ${index} (${kind}) ${problem}` };
  }
  return print.footprint();
}

/** Whether footprintOf refused. */
export function isUnsupported(
  footprint: Footprint | { unsupported: string },
): footprint is { unsupported: string } {
  return 'unsupported' in footprint;
}

/** Kinds that change the grid's shape, each with the tool that does it and keeps what undo needs. */
export const UNDOABLE_ELSEWHERE: Readonly<Record<string, string>> = {
  deleteSheet: 'delete_sheet',
  insertDimension: 'insert_dimension',
  deleteDimension: 'delete_dimension',
  appendCells: 'append_rows',
};

function unsupportedKind(index: number, kind: string | undefined): string {
  if (!kind) return `request ${index} names no change`;
  const tool = UNDOABLE_ELSEWHERE[kind];
  return tool
    ? `request ${index} (${kind}) changes the grid's shape, which undo cannot take back inside a batch: ${tool} does it and keeps what undo needs`
    : `request ${index} (${kind}) is not a change undo can take back`;
}
