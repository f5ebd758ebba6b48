import type { AccountServiceClientApi } from '@sheetgate/proto';
import type { Context } from 'koa';
import type { FormTokens } from '../forms/form-tokens.ts';
import type { PickedFilesInput } from '../pages/dashboard-page.ts';
import { allowPickerSources } from '../security-headers.ts';

const DRIVE_FILE = 'https://www.googleapis.com/auth/drive.file';
/** A grant with any of these reaches every spreadsheet already: the Picker is not for it. */
const BROAD_GOOGLE_SCOPES = ['drive', 'drive.readonly', 'spreadsheets'].map(
  (name) => `https://www.googleapis.com/auth/${name}`,
);

/** The Google Picker as web's settings describe it (see settings.ts). */
export interface PickerSettings {
  apiKey: string | undefined;
  appId: string | undefined;
  scriptUrl: string;
  /** The origin of the frames the Picker opens. */
  frameOrigin: string;
}

/**
 * The dashboard's picked-files section (GOOGLE_SCOPE_MODE=picked-files): the person's chosen
 * files, and the Picker when it can open (Google connected with drive.file, the Picker's API key
 * and app id set). Only then does this response's CSP name the Picker's origins.
 */
export async function pickedFilesSection(
  ctx: Context,
  deps: { accounts: AccountServiceClientApi; formTokens: FormTokens; picker?: PickerSettings | undefined },
  sessionCookie: string,
  google: { status: string; grantedScopes: string[] },
): Promise<PickedFilesInput> {
  const { accounts, formTokens, picker } = deps;
  const { files } = await accounts.listPickedFiles({ sessionCookie });
  const forgetCsrf = formTokens.issue('forget-file', sessionCookie);
  if (google.status !== 'GOOGLE_CONNECTION_STATUS_CONNECTED' || !google.grantedScopes.includes(DRIVE_FILE))
    return {
      files,
      forgetCsrf,
      unavailable: 'Connect Google (and allow every requested access) to choose spreadsheets.',
    };
  if (google.grantedScopes.some((scope) => BROAD_GOOGLE_SCOPES.includes(scope)))
    return {
      files,
      forgetCsrf,
      unavailable:
        'Your Google connection already reaches all your spreadsheets (you granted more before this deployment asked for less). To give Sheetgate only the files you choose, remove Sheetgate under Third-party apps & services in your Google Account, then reconnect Google.',
    };
  if (!picker?.apiKey || !picker.appId)
    return {
      files,
      forgetCsrf,
      unavailable:
        'The Google Picker is not set up in this deployment (GOOGLE_PICKER_API_KEY, GOOGLE_PICKER_APP_ID): ask its operator.',
    };
  allowPickerSources(ctx, {
    scriptOrigin: new URL(picker.scriptUrl).origin,
    frameOrigin: picker.frameOrigin,
  });
  return {
    files,
    forgetCsrf,
    picker: {
      apiKey: picker.apiKey,
      appId: picker.appId,
      scriptUrl: picker.scriptUrl,
      tokenCsrf: formTokens.issue('picker-token', sessionCookie),
      chooseCsrf: formTokens.issue('choose-files', sessionCookie),
    },
  };
}
