/**
 * How a written value becomes a cell: `RAW` stores it as given; `USER_ENTERED` parses a string
 * as if typed into the Sheets UI (en_US): numbers with thousands separators, percentages,
 * currency, scientific, booleans, dates and times (stored as serial numbers with a date format),
 * formulas, and a leading apostrophe forcing text.
 */
import type { CellData, NumberFormat } from './model.ts';
import { serialFromParts } from './number-format.ts';

export type ValueInputOption = 'RAW' | 'USER_ENTERED';

/** The cell a written JSON value makes, or undefined to clear the cell's value. */
export function cellFromInput(
  value: unknown,
  option: ValueInputOption,
): Pick<CellData, 'userEnteredValue' | 'userEnteredFormat'> | undefined {
  if (typeof value === 'number') return { userEnteredValue: { numberValue: value } };
  if (typeof value === 'boolean') return { userEnteredValue: { boolValue: value } };
  const text = typeof value === 'string' ? value : String(value);
  if (text === '') return undefined;
  if (option === 'RAW') return { userEnteredValue: { stringValue: text } };
  return parseUserEntered(text);
}

export function parseUserEntered(text: string): Pick<CellData, 'userEnteredValue' | 'userEnteredFormat'> {
  if (text.startsWith("'")) return { userEnteredValue: { stringValue: text.slice(1) } };
  if (text.startsWith('=') && text.length > 1) return { userEnteredValue: { formulaValue: text } };
  const trimmed = text.trim();
  const upper = trimmed.toUpperCase();
  if (upper === 'TRUE' || upper === 'FALSE') return { userEnteredValue: { boolValue: upper === 'TRUE' } };
  const parsed = parseNumber(trimmed) ?? parseDateTime(trimmed);
  if (!parsed) return { userEnteredValue: { stringValue: text } };
  return {
    userEnteredValue: { numberValue: parsed.value },
    ...(parsed.format ? { userEnteredFormat: { numberFormat: parsed.format } } : {}),
  };
}

interface ParsedNumber {
  value: number;
  format?: NumberFormat;
}

const PLAIN_NUMBER = /^(\d{1,3}(?:,\d{3})+|\d*)(?:\.(\d*))?$/;

function parseNumber(text: string): ParsedNumber | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  let currency = false;
  if (rest.startsWith('$')) {
    currency = true;
    rest = rest.slice(1);
    if (!negative && rest.startsWith('-')) {
      negative = true;
      rest = rest.slice(1);
    }
  }
  let percent = false;
  if (!currency && rest.endsWith('%')) {
    percent = true;
    rest = rest.slice(0, -1);
  }
  const scientific = /^(\d+(?:\.\d*)?|\.\d+)[eE]([+-]?\d+)$/.exec(rest);
  if (scientific && !currency && !percent) {
    const value = Number(rest) * (negative ? -1 : 1);
    return { value, format: { type: 'SCIENTIFIC', pattern: '0.00E+00' } };
  }
  const match = PLAIN_NUMBER.exec(rest);
  if (!match || !/\d/.test(rest)) return undefined;
  const integer = match[1] ?? '';
  const decimals = match[2];
  const grouped = integer.includes(',');
  const magnitude = Number(`${integer.replaceAll(',', '') || '0'}.${decimals || '0'}`);
  const signed = negative ? -magnitude : magnitude;
  const fraction = decimals ? '.00' : '';
  if (percent)
    return { value: signed / 100, format: { type: 'PERCENT', pattern: decimals ? '0.00%' : '0%' } };
  if (currency) return { value: signed, format: { type: 'CURRENCY', pattern: `"$"#,##0${fraction}` } };
  if (grouped) return { value: signed, format: { type: 'NUMBER', pattern: `#,##0${fraction}` } };
  return { value: signed };
}

const ISO_DATE = /^(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const US_DATE =
  /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([AaPp][Mm]))?)?$/;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([AaPp][Mm]))?$/;

function parseDateTime(text: string): ParsedNumber | undefined {
  const iso = ISO_DATE.exec(text);
  if (iso) {
    const [, year, separator, month, day, hours, minutes, seconds] = iso;
    const time = hours === undefined ? undefined : clockTime(hours, minutes, seconds, undefined);
    const datePattern = `yyyy${separator}mm${separator}dd`;
    return dateValue(
      Number(year),
      Number(month),
      Number(day),
      time,
      datePattern,
      timePattern(seconds, undefined),
    );
  }
  const us = US_DATE.exec(text);
  if (us) {
    const [, month, day, yearText = '', hours, minutes, seconds, meridiem] = us;
    // Two-digit years follow Sheets: 00–29 are 2000s, 30–99 are 1900s.
    const year =
      yearText.length === 2 ? Number(yearText) + (Number(yearText) < 30 ? 2000 : 1900) : Number(yearText);
    const time = hours === undefined ? undefined : clockTime(hours, minutes, seconds, meridiem);
    return dateValue(year, Number(month), Number(day), time, 'M/d/yyyy', timePattern(seconds, meridiem));
  }
  const clock = TIME.exec(text);
  if (clock) {
    const [, hours, minutes, seconds, meridiem] = clock;
    const time = clockTime(hours, minutes, seconds, meridiem);
    if (time === undefined) return undefined;
    return { value: time, format: { type: 'TIME', pattern: timePattern(seconds, meridiem) } };
  }
  return undefined;
}

/** A time of day as a fraction of a day, or undefined when out of range. */
function clockTime(
  hoursText = '0',
  minutesText = '0',
  secondsText = '0',
  meridiem: string | undefined,
): number | undefined {
  let hours = Number(hoursText);
  const minutes = Number(minutesText);
  const seconds = Number(secondsText);
  if (meridiem) {
    if (hours < 1 || hours > 12) return undefined;
    hours = (hours % 12) + (meridiem.toUpperCase() === 'PM' ? 12 : 0);
  }
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return (hours * 3600 + minutes * 60 + seconds) / 86_400;
}

function timePattern(seconds: string | undefined, meridiem: string | undefined): string {
  const clock = `${meridiem ? 'h' : 'H'}:mm${seconds === undefined ? '' : ':ss'}`;
  return meridiem ? `${clock} am/pm` : clock;
}

function dateValue(
  year: number,
  month: number,
  day: number,
  time: number | undefined,
  datePattern: string,
  timePattern: string,
): ParsedNumber | undefined {
  if (month < 1 || month > 12 || day < 1) return undefined;
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1) return undefined;
  const serial = serialFromParts(year, month, day);
  if (time === undefined) return { value: serial, format: { type: 'DATE', pattern: datePattern } };
  return { value: serial + time, format: { type: 'DATE_TIME', pattern: `${datePattern} ${timePattern}` } };
}
