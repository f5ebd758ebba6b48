import type { sheets_v4 } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoogleEmulator } from '../src/index.ts';
import { driveFor, SCOPES, sheetsFor, signIn, startTestEmulator } from './support/emulator.ts';

// A spreadsheet's time zone and locale (SpreadsheetProperties.timeZone, "in CLDR format such as
// America/New_York", and .locale, "an ISO 639-1 language code … and an ISO 3166-1 alpha-2 country
// code", https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets#SpreadsheetProperties),
// through googleapis alone.

let emulator: GoogleEmulator;
let sheets: sheets_v4.Sheets;
let auth: Awaited<ReturnType<typeof signIn>>['auth'];

beforeAll(async () => {
  const started = await startTestEmulator();
  emulator = started.emulator;
  ({ auth } = await signIn(emulator, started.clientA, {
    scopes: ['openid', 'email', SCOPES.spreadsheets, SCOPES.driveFile],
  }));
  sheets = sheetsFor(emulator, auth);
});

afterAll(async () => {
  await emulator?.close();
});

const timeOf = async (spreadsheetId: string) =>
  (await sheets.spreadsheets.get({ spreadsheetId, fields: 'properties(timeZone,locale)' })).data.properties;

describe('time zone and locale', () => {
  it('a new spreadsheet that names none has Etc/GMT and en_US', async () => {
    const { data } = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Plain' } } });
    expect(data.properties).toMatchObject({ timeZone: 'Etc/GMT', locale: 'en_US' });
    expect(await timeOf(data.spreadsheetId!)).toEqual({ timeZone: 'Etc/GMT', locale: 'en_US' });
  });

  it('spreadsheets.create keeps the time zone and locale it is given; a copy keeps them too', async () => {
    const { data } = await sheets.spreadsheets.create({
      requestBody: { properties: { title: 'Berlin', timeZone: 'Europe/Berlin', locale: 'de_DE' } },
    });
    expect(await timeOf(data.spreadsheetId!)).toEqual({ timeZone: 'Europe/Berlin', locale: 'de_DE' });
    const copy = await driveFor(emulator, auth).files.copy({ fileId: data.spreadsheetId!, fields: 'id' });
    expect(await timeOf(copy.data.id!)).toEqual({ timeZone: 'Europe/Berlin', locale: 'de_DE' });
  });

  it('updateSpreadsheetProperties changes them', async () => {
    const { data } = await sheets.spreadsheets.create({ requestBody: { properties: { title: 'Moved' } } });
    await sheets.spreadsheets.batchUpdate({
      spreadsheetId: data.spreadsheetId!,
      requestBody: {
        requests: [
          {
            updateSpreadsheetProperties: {
              properties: { timeZone: 'Asia/Kolkata', locale: 'en_IN' },
              fields: 'timeZone,locale',
            },
          },
        ],
      },
    });
    expect(await timeOf(data.spreadsheetId!)).toEqual({ timeZone: 'Asia/Kolkata', locale: 'en_IN' });
  });
});
