/**
 * The date and time now as a spreadsheet with time zone `timeZone` (its `properties.timeZone`, an
 * IANA name such as "Europe/Berlin") sees them: `2026-12-07 18:05 (Europe/Berlin, UTC+01:00)`,
 * computed by Intl from the zone's rules. Undefined for a zone Intl does not know.
 */
export function timeIn(timeZone: string, at: Date = new Date()): string | undefined {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    }).formatToParts(at);
  } catch {
    return undefined;
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((each) => each.type === type)?.value ?? '';
  // longOffset is "GMT+01:00", or "GMT" where the offset is zero.
  const offset = part('timeZoneName').replace(/^GMT$/, 'GMT+00:00').replace(/^GMT/, 'UTC');
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} (${timeZone}, ${offset})`;
}
