import type { drive_v3, sheets_v4 } from 'googleapis';
import type { CallGoogle } from '../../google/call-google.ts';
import type { ChangeJournal } from '../../journal/change-journal.ts';
import type { OutboundPolicy } from '../guards/outbound-guard.ts';

/** What every Sheets/Drive tool needs: the API clients (one per process) and the call wrapper. */
export interface ToolDeps {
  sheets: sheets_v4.Sheets;
  drive: drive_v3.Drive;
  callGoogle: CallGoogle;
  /** The change journal (docs/design.md §11.8); absent when it is off, and then nothing is recorded. */
  journal?: ChangeJournal | undefined;
  /** `<BASE_URL>/dashboard`, where a refusal for a toolset the credential lacks says to enable it. */
  dashboardUrl?: string | undefined;
  /** GOOGLE_WRITE_REQUEST_BYTES: a larger value write goes to Google in several requests. */
  googleWriteRequestBytes?: number | undefined;
  /**
   * The operator's ceiling on outbound actions and who the person is (guards/outbound-guard.ts):
   * for a tool that learns an action's recipient from Google (update_permission). Absent: no ceiling.
   */
  outbound?: OutboundPolicy | undefined;
}
