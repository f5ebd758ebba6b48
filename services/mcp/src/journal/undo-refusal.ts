import type { UndoOutcome } from './undo-change.ts';

/** A refusal found part-way through an undo, carried out to its one answer (undo-change.ts). */
export class UndoRefusal extends Error {
  readonly outcome: UndoOutcome;
  constructor(outcome: UndoOutcome) {
    super(outcome.kind);
    this.outcome = outcome;
  }
}
