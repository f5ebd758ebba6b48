import { google, type sheets_v4 } from 'googleapis';
import { startEmulatorOnFreePort } from './emulator.ts';

const SCOPES = ['https://www.googleapis.com/auth/spreadsheets'];

/**
 * A googleapis Sheets client on a Google emulator process, with an access token the emulator
 * issued (a grant through its admin API, then the refresh token exchanged as Google's are).
 */
export async function startEmulatorSheets(
  email = 'alice@example.com',
): Promise<{ sheets: sheets_v4.Sheets; stop(): void }> {
  const emulator = await startEmulatorOnFreePort({ GOOGLE_EMULATOR_ACCOUNTS: email });
  try {
    const granted = await fetch(`${emulator.url}/__emulator/grants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, clientId: 'emulator-client', scopes: SCOPES }),
    });
    const { refresh_token: refreshToken } = (await granted.json()) as { refresh_token: string };
    const exchanged = await fetch(`${emulator.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: 'emulator-client',
        client_secret: 'emulator-secret',
      }),
    });
    const { access_token: accessToken } = (await exchanged.json()) as { access_token: string };
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: accessToken });
    return {
      sheets: google.sheets({ version: 'v4', auth, rootUrl: `${emulator.url}/` }),
      stop: () => emulator.child.kill(),
    };
  } catch (error) {
    emulator.child.kill();
    throw error;
  }
}
