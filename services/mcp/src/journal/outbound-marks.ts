import { AsyncLocalStorage } from 'node:async_hooks';
import { describeChange, OUTBOUND_SUMMARY_PREFIX } from '@sheetgate/proto';
import type { AuthInfo } from '../auth/auth-info.ts';
import type { OutboundAction } from '../tools/guards/outbound-actions.ts';
import type { ChangeEntry, ChangeJournal } from './change-journal.ts';

/**
 * The outbound actions of the tool call under way (issue 37, "visible afterwards"): set by the
 * outbound guard (tools/guards/outbound-guard.ts) before the tool runs, added to by a tool that
 * learns more from Google (update_permission reads the grantee), and read when the call's change
 * is journaled. AsyncLocalStorage carries them as state-capture.ts carries a capture.
 */
const marks = new AsyncLocalStorage<OutboundAction[]>();

export function runMarkedOutbound<T>(actions: readonly OutboundAction[], run: () => Promise<T>): Promise<T> {
  return marks.run([...actions], run);
}

/** Adds actions a tool found once it had read Google, to the call under way. */
export function markOutbound(actions: readonly OutboundAction[]): void {
  marks.getStore()?.push(...actions);
}

function label(action: OutboundAction): string {
  switch (action.kind) {
    case 'link':
      return 'anyone with the link';
    case 'share':
      return `to ${action.to}`;
    case 'message':
      return `message to ${action.to}`;
    case 'notify':
      return `notifies ${action.to}`;
    case 'fetch':
      return `fetches ${action.to}`;
    case 'write':
      return `into a spreadsheet of ${action.to}`;
  }
}

/** `outbound (to carol@gmail.com): shared with carol@gmail.com as writer`: what list_changes and Activity show. */
export function outboundSummary(entry: ChangeEntry, actions: readonly OutboundAction[]): string {
  const labels = [...new Set(actions.map(label))].join('; ');
  const words = describeChange({ ...entry, summary: entry.summary ?? '' });
  return `${OUTBOUND_SUMMARY_PREFIX}${labels}): ${words}`;
}

/**
 * The journal with each entry of a call that took outbound actions marked in its summary; an
 * undo's own entry is not (undo_change takes nothing out).
 */
export function markingOutbound(journal: ChangeJournal): ChangeJournal {
  return {
    flush: () => journal.flush(),
    list: (auth, filters) => journal.list(auth, filters),
    get: (auth, changeId, spreadsheetId) => journal.get(auth, changeId, spreadsheetId),
    markUndone: (auth, changeId, undoneBy) => journal.markUndone(auth, changeId, undoneBy),
    close: () => journal.close(),
    record(auth: AuthInfo, entry: ChangeEntry) {
      const actions = marks.getStore();
      if (!actions?.length || entry.undoesChangeId) return journal.record(auth, entry);
      return journal.record(auth, { ...entry, summary: outboundSummary(entry, actions) });
    },
  };
}
