import type { AuthInfo } from '../../auth/auth-info.ts';
import type { ChangeEntry, ChangeJournal } from '../../journal/change-journal.ts';
import type { ChangePayload } from '../../journal/change-payloads.ts';

/** What was captured before a deletion (journal/sheet-image.ts): the image undo needs, or why there is none. */
interface Captured {
  image?: unknown;
  undoUnavailableReason?: string;
}

/**
 * Journals a deletion from what was captured before it: the entry `describe` makes of it, with the
 * payload undo needs when there is an image, else the reason undo is not available. The change's
 * id, or undefined when the journal is off (nothing was captured).
 */
export function journalDeletion<Capture extends Captured>(
  journal: ChangeJournal | undefined,
  auth: AuthInfo,
  captured: Capture | undefined,
  describe: (captured: Capture) => Omit<ChangeEntry, 'payload' | 'undoUnavailableReason'>,
  payload: (image: NonNullable<Capture['image']>) => ChangePayload,
): string | undefined {
  if (!journal || !captured) return undefined;
  return journal.record(auth, {
    ...describe(captured),
    ...(captured.image
      ? { payload: payload(captured.image as NonNullable<Capture['image']>) }
      : { undoUnavailableReason: captured.undoUnavailableReason ?? '' }),
  });
}
