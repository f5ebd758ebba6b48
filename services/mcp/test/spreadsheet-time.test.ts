import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeIn } from '../src/tools/kit/spreadsheet-time.ts';
import { type McpUnderTest, startMcpUnderTest } from './support/stack.ts';
import { callToolOk } from './support/tool-answers.ts';

// Time as the spreadsheet sees it (issue 36 item 5): get_spreadsheet answers the spreadsheet's time
// zone and locale (SpreadsheetProperties) and the date and time there now, computed by Intl from the
// zone's rules; through real mcp and auth processes and the Google emulator.

describe('timeIn', () => {
  it("says the date and time in the zone with the zone's offset at that moment", () => {
    const winter = new Date('2026-12-07T17:05:00Z');
    expect(timeIn('Europe/Berlin', winter)).toBe('2026-12-07 18:05 (Europe/Berlin, UTC+01:00)');
    expect(timeIn('Europe/Berlin', new Date('2026-07-01T00:00:00Z'))).toBe(
      '2026-07-01 02:00 (Europe/Berlin, UTC+02:00)',
    );
    expect(timeIn('Etc/GMT', winter)).toBe('2026-12-07 17:05 (Etc/GMT, UTC+00:00)');
    expect(timeIn('America/St_Johns', winter)).toBe('2026-12-07 13:35 (America/St_Johns, UTC-03:30)');
    // Past midnight there: another day, and another year.
    expect(timeIn('Asia/Kolkata', new Date('2026-12-31T23:59:00Z'))).toBe(
      '2027-01-01 05:29 (Asia/Kolkata, UTC+05:30)',
    );
  });

  it('answers nothing for a zone Intl does not know, however it is written', () => {
    for (const zone of ['Nowhere/Else', '', 'Europe/Berlin\n', '../../etc/passwd', 'x'.repeat(5_000)])
      expect(timeIn(zone)).toBeUndefined();
  });
});

describe('get_spreadsheet', () => {
  let stack: McpUnderTest;
  let client: Client;
  let userId: string;

  beforeAll(async () => {
    stack = await startMcpUnderTest();
    ({ userId } = await stack.signIn('alice@example.com'));
    client = await stack.connectClient(userId, 'spreadsheet time');
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  /** A spreadsheet made with alice's Google token (no tool), with the properties given. */
  async function created(properties: Record<string, string>): Promise<string> {
    const token = await stack.googleAccessToken(userId);
    const response = await fetch(`${stack.emulatorUrl}/v4/spreadsheets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { spreadsheetId: string }).spreadsheetId;
  }

  it("answers the spreadsheet's time zone, locale and the time there now, in text and structured", async () => {
    const spreadsheetId = await created({ title: 'Berlin plan', timeZone: 'Europe/Berlin', locale: 'de_DE' });
    const before = timeIn('Europe/Berlin');
    const answer = await callToolOk(client, 'get_spreadsheet', { spreadsheetId });
    const after = timeIn('Europe/Berlin');
    const { now } = answer.structured as { now: string };
    // The minute may turn during the call: the answer is the time at one end of it or the other.
    expect([before, after]).toContain(now);
    expect(answer.structured).toMatchObject({ timeZone: 'Europe/Berlin', locale: 'de_DE' });
    expect(answer.text.split('\n')[1]).toBe(`Locale de_DE; now ${now}`);
  });

  it('answers the emulator default (Etc/GMT, en_US) for a spreadsheet created without them', async () => {
    const [spreadsheetId] = await stack.seed('alice@example.com', [{ name: 'Plain', values: [['x']] }]);
    const answer = await callToolOk(client, 'get_spreadsheet', { spreadsheetId });
    expect(answer.structured).toMatchObject({ timeZone: 'Etc/GMT', locale: 'en_US' });
    expect(answer.structured.now).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(Etc\/GMT, UTC\+00:00\)$/);
  });

  it('names the zone without a time when Intl does not know it', async () => {
    const spreadsheetId = await created({
      title: 'Odd zone',
      timeZone: 'Mars/Olympus_Mons',
      locale: 'en_GB',
    });
    const answer = await callToolOk(client, 'get_spreadsheet', { spreadsheetId });
    expect(answer.structured).toMatchObject({ timeZone: 'Mars/Olympus_Mons', locale: 'en_GB' });
    expect(answer.structured).not.toHaveProperty('now');
    expect(answer.text.split('\n')[1]).toBe('Locale en_GB; time zone Mars/Olympus_Mons');
  });
});
