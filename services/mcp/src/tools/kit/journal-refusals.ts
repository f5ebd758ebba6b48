import { kindOfCallError } from '@sheetgate/proto';
import { z } from 'zod';
import { ToolError } from '../../errors/tool-error.ts';

/** A refusal names at most this many cells changed since, then how many more. */
const NAMED_CELLS = 20;

export const changeId = z.string().max(100).describe("From a write's answer or list_changes.");

export function off(): never {
  throw new ToolError(
    'The change journal is off on this Sheetgate server: there is nothing to list or undo.',
  );
}

export const notFound = (id: string | undefined) =>
  new ToolError(
    id
      ? `Change ${id} was not found among your changes (list_changes lists them; changes are kept for a limited time).`
      : 'No change of this credential was found that can be undone (list_changes lists your changes).',
  );

/** Auth unreachable: said to the model as something to retry, not as an unexpected failure. */
export function journalUnavailable(error: unknown): unknown {
  return kindOfCallError(error) === 'unavailable'
    ? new ToolError('The change journal cannot be reached right now; nothing was changed. Try again shortly.')
    : error;
}

/**
 * "these 3 were changed since change …: Sheet1!A2, …" — at most NAMED_CELLS named, then how many
 * more: the refusal's words for undo_change and the dashboard alike.
 */
export function changedSinceSentence(changeId: string, cells: string[]): string {
  const named = cells.slice(0, NAMED_CELLS).join(', ');
  const more = cells.length > NAMED_CELLS ? ` and ${cells.length - NAMED_CELLS} more` : '';
  return `${cells.length === 1 ? 'this was' : `these ${cells.length} were`} changed since change ${changeId}: ${named}${more}.`;
}
