import type { AuthInfo } from '../auth/auth-info.ts';
import { ToolError } from '../errors/tool-error.ts';
import type { ToolDeps } from '../tools/kit/tool-deps.ts';
import type { ChangeJournal, ListedChange } from './change-journal.ts';
import type { DrivePayload } from './drive-payloads.ts';
import type { UndoOutcome } from './undo-change.ts';

/** A refusal of a Drive undo, carried out to undo_change's one answer like the cells' refusals. */
export class DriveUndoRefusal extends Error {
  readonly outcome: UndoOutcome;
  constructor(outcome: UndoOutcome) {
    super(outcome.kind);
    this.outcome = outcome;
  }
}

/** What a Drive undo did (or, for a dry run, would do). */
export interface DriveUndone {
  restored: string[];
  changedSince: string[];
  text: string;
  undoId?: string;
  undoUnavailable?: string;
}

/** The undo of a Drive-side change (docs/design.md §11.8). */
export async function undoDriveChange(
  _deps: ToolDeps,
  _journal: ChangeJournal,
  _auth: AuthInfo,
  _signal: AbortSignal,
  change: ListedChange,
  payload: DrivePayload,
  _options: { force: boolean; dryRun: boolean },
): Promise<DriveUndone> {
  throw new ToolError(`Undo of ${payload.kind} changes is not built yet (change ${change.id}).`);
}
