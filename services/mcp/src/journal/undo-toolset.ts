import type { ToolsetName } from '@sheetgate/proto';
import type { AuthInfo } from '../auth/auth-info.ts';
import { toolsetOf } from '../tools/registry.ts';
import { enablesToolset } from '../tools/toolsets.ts';
import type { ChangeJournal, ListedChange } from './change-journal.ts';

/** Undos of undos followed back to the change they redo; a longer chain is refused. */
const MAX_UNDO_CHAIN = 50;

/**
 * Whether `auth` may undo `change` (docs/design.md §11.5): an undo writes what the change's tool
 * wrote, so it needs that tool's toolset — undo_change's own (Writing) is not enough to recreate a
 * deleted tab (Structure). An undo of an undo redoes the change that undo undid, so the set is that
 * change's tool's, followed back through the journal. `ok`, the set lacking and the tool it
 * belongs to, or why the set cannot be told (`unknown`: a tool of another release, a change no
 * longer kept). A credential that enables every set reads nothing more.
 */
export async function undoToolset(
  journal: ChangeJournal,
  auth: AuthInfo,
  change: ListedChange,
): Promise<
  | { kind: 'ok' }
  | { kind: 'not_enabled'; tool: string; set: ToolsetName }
  | { kind: 'unknown'; reason: string }
> {
  if (auth.toolsets === undefined) return { kind: 'ok' };
  let undone = change;
  for (let hops = 0; undone.tool === 'undo_change' && undone.undoesChangeId; hops++) {
    if (hops === MAX_UNDO_CHAIN)
      return { kind: 'unknown', reason: 'It is an undo of too many undos to tell which toolset it needs.' };
    const earlier = await journal.get(auth, undone.undoesChangeId);
    if (!earlier)
      return {
        kind: 'unknown',
        reason: `It redoes change ${undone.undoesChangeId}, which is no longer in the journal, so the toolset it needs cannot be told.`,
      };
    undone = earlier.change;
  }
  const set = toolsetOf(undone.tool);
  if (!set)
    return {
      kind: 'unknown',
      reason: `Its tool ${undone.tool} is not one this Sheetgate server has, so the toolset it needs cannot be told.`,
    };
  return enablesToolset(auth, set) ? { kind: 'ok' } : { kind: 'not_enabled', tool: undone.tool, set };
}
