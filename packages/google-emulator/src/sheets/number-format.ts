/**
 * Renders numbers the way Sheets shows them (en_US locale): Google's number-format patterns
 * (`#,##0.00`, `0%`, `"$"#,##0.00`, `0.00E+00`, `yyyy-mm-dd`, `M/d/yyyy H:mm:ss`, …) and the
 * automatic format. Dates are serial numbers: days since 1899-12-30, as Google and Lotus count.
 */
import type { NumberFormat } from './model.ts';

const MS_PER_DAY = 86_400_000;
const SERIAL_EPOCH = Date.UTC(1899, 11, 30);

/** The pattern Google uses when a format names only a type. */
export const DEFAULT_PATTERNS: Record<string, string> = {
  TEXT: '@',
  NUMBER: '#,##0.00',
  PERCENT: '0.00%',
  CURRENCY: '"$"#,##0.00',
  DATE: 'M/d/yyyy',
  TIME: 'h:mm:ss am/pm',
  DATE_TIME: 'M/d/yyyy H:mm:ss',
  SCIENTIFIC: '0.00E+00',
};

export function serialFromParts(
  year: number,
  month: number,
  day: number,
  hours = 0,
  minutes = 0,
  seconds = 0,
): number {
  return (Date.UTC(year, month - 1, day, hours, minutes, seconds) - SERIAL_EPOCH) / MS_PER_DAY;
}

export function isDateType(format: NumberFormat | undefined | null): boolean {
  return format?.type === 'DATE' || format?.type === 'TIME' || format?.type === 'DATE_TIME';
}

export function formatNumber(value: number, format: NumberFormat | undefined | null): string {
  const type = format?.type;
  if (!type || type === 'NUMBER_FORMAT_TYPE_UNSPECIFIED' || type === 'TEXT') {
    return format?.pattern && type !== 'TEXT'
      ? formatWithPattern(value, format.pattern)
      : formatAutomatic(value);
  }
  return formatWithPattern(value, format.pattern || DEFAULT_PATTERNS[type] || '');
}

/** Sheets' automatic format: up to 10 decimal places, scientific for very large or small values. */
export function formatAutomatic(value: number): string {
  if (!Number.isFinite(value)) return '#NUM!';
  if (value === 0) return '0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e15 || magnitude < 1e-10) return formatScientific(value, 5, false);
  const rounded = Number(value.toFixed(10));
  return String(Number(rounded.toPrecision(15)));
}

export function formatWithPattern(value: number, pattern: string): string {
  const sections = splitSections(pattern);
  let section = sections[0] ?? '';
  let number = value;
  let sign = '';
  if (value < 0 && sections.length > 1) {
    section = sections[1] ?? section;
    number = -value;
  } else if (value === 0 && sections.length > 2) {
    section = sections[2] ?? section;
  }
  if (isDatePattern(section)) return formatDate(number, section);
  if (number < 0) {
    sign = '-';
    number = -number;
  }
  return sign + formatNumericSection(number, section);
}

function splitSections(pattern: string): string[] {
  const sections: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    if (char === '"') quoted = !quoted;
    if (char === '\\' && !quoted) {
      current += char + (pattern[i + 1] ?? '');
      i++;
      continue;
    }
    if (char === ';' && !quoted) {
      sections.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  sections.push(current);
  return sections;
}

/** A pattern token: a literal to print, or a placeholder character. */
interface Token {
  literal: boolean;
  text: string;
}

function tokenize(section: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < section.length; i++) {
    const char = section[i] ?? '';
    if (char === '"') {
      const end = section.indexOf('"', i + 1);
      const stop = end < 0 ? section.length : end;
      tokens.push({ literal: true, text: section.slice(i + 1, stop) });
      i = stop;
    } else if (char === '\\') {
      tokens.push({ literal: true, text: section[i + 1] ?? '' });
      i++;
    } else if (char === '[') {
      // Colour and condition brackets (`[Red]`) change nothing in a plain-text rendering.
      const end = section.indexOf(']', i);
      i = end < 0 ? section.length : end;
    } else if (char === '_' || char === '*') {
      i++;
    } else {
      tokens.push({ literal: false, text: char });
    }
  }
  return tokens;
}

function isDatePattern(section: string): boolean {
  return (
    tokenize(section).some((token) => !token.literal && /[yMdDhHsa]/.test(token.text)) ||
    (tokenize(section).some((token) => !token.literal && token.text === 'm') &&
      !tokenize(section).some((token) => !token.literal && /[0#]/.test(token.text)))
  );
}

function formatNumericSection(value: number, section: string): string {
  const tokens = tokenize(section);
  const isPlaceholder = (token: Token) => !token.literal && /[0#?]/.test(token.text);
  const exponentAt = tokens.findIndex(
    (token, index) => !token.literal && /[eE]/.test(token.text) && /[+-]/.test(tokens[index + 1]?.text ?? ''),
  );
  const mantissaTokens = exponentAt >= 0 ? tokens.slice(0, exponentAt) : tokens;
  const first = mantissaTokens.findIndex(isPlaceholder);
  if (first < 0) return tokens.map((token) => token.text).join('');
  let last = mantissaTokens.length - 1;
  while (last > first && !isPlaceholder(tokens[last] as Token) && !/[.,]/.test((tokens[last] as Token).text))
    last--;
  const percent = tokens.some((token) => !token.literal && token.text === '%');
  const body = tokens
    .slice(first, last + 1)
    .filter((token) => !token.literal)
    .map((token) => token.text)
    .join('');
  let scaled = percent ? value * 100 : value;
  const dot = body.indexOf('.');
  const integerPart = dot < 0 ? body : body.slice(0, dot);
  const fractionPart = dot < 0 ? '' : body.slice(dot + 1);
  const maxDecimals = (fractionPart.match(/[0#?]/g) ?? []).length;
  const minDecimals = (fractionPart.match(/[0?]/g) ?? []).length;
  const minIntegerDigits = (integerPart.match(/[0?]/g) ?? []).length;
  // A comma between digit placeholders groups thousands; commas after the last digit, before
  // the decimal point or after the decimals, divide by a thousand each (`#,##0,` `0.0,,"M"`).
  const grouping = /[0#?],+[0#?]/.test(integerPart);
  const scaling = (/,+$/.exec(integerPart)?.[0].length ?? 0) + (/,+$/.exec(fractionPart)?.[0].length ?? 0);
  if (scaling > 0) scaled /= 1000 ** scaling;
  let rendered: string;
  if (exponentAt >= 0) {
    rendered = formatScientific(scaled, maxDecimals, true, minDecimals);
  } else {
    rendered = formatFixed(scaled, maxDecimals, minDecimals, minIntegerDigits, grouping);
  }
  const prefix = tokens
    .slice(0, first)
    .map((token) => token.text)
    .join('');
  // After an exponent, its sign and digits were rendered with the mantissa.
  const suffixStart = exponentAt >= 0 ? exponentAt + 2 : last + 1;
  const suffix = tokens
    .slice(suffixStart)
    .filter((token) => exponentAt < 0 || token.literal || !/[0#?]/.test(token.text))
    .map((token) => token.text)
    .join('');
  return prefix + rendered + suffix;
}

function formatFixed(
  value: number,
  maxDecimals: number,
  minDecimals: number,
  minIntegerDigits: number,
  grouping: boolean,
): string {
  const fixed = value.toFixed(maxDecimals);
  let [integer = '0', fraction = ''] = fixed.split('.');
  while (fraction.length > minDecimals && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  if (integer === '0' && minIntegerDigits === 0) integer = '';
  integer = integer.padStart(minIntegerDigits, '0');
  if (grouping) integer = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${integer}.${fraction}` : integer;
}

function formatScientific(
  value: number,
  decimals: number,
  fixedDecimals: boolean,
  minDecimals = decimals,
): string {
  const [mantissa = '0', exponent = '0'] = value.toExponential(decimals).split('e');
  let [integer = '0', fraction = ''] = mantissa.split('.');
  if (!fixedDecimals || minDecimals < decimals) {
    while (fraction.length > (fixedDecimals ? minDecimals : 0) && fraction.endsWith('0'))
      fraction = fraction.slice(0, -1);
  }
  const power = Number(exponent);
  const sign = power < 0 ? '-' : '+';
  return `${integer}${fraction ? `.${fraction}` : ''}E${sign}${String(Math.abs(power)).padStart(2, '0')}`;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Formats a serial number with a date/time pattern (`m` is minutes next to hours or seconds). */
export function formatDate(serial: number, section: string): string {
  const ms = Math.round((serial * MS_PER_DAY) / 1000) * 1000 + SERIAL_EPOCH;
  const date = new Date(ms);
  const tokens = tokenize(section);
  // Group runs of the same placeholder letter: `yyyy`, `mm`, `dddd`, and `am/pm`.
  const runs: Array<{ literal: boolean; text: string }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.literal) {
      runs.push(token);
      continue;
    }
    const rest = tokens
      .slice(i)
      .map((t) => t.text)
      .join('');
    const meridiem = /^(am\/pm|AM\/PM|a\/p|A\/P)/.exec(rest);
    if (meridiem) {
      runs.push({ literal: false, text: 'AM/PM' });
      i += meridiem[0].length - 1;
      continue;
    }
    const previous = runs.at(-1);
    if (previous && !previous.literal && previous.text[0] === token.text && /[yMmdDhHs]/.test(token.text)) {
      previous.text += token.text;
    } else {
      runs.push({ literal: !/[yMmdDhHs0]/.test(token.text) || token.text === '0', text: token.text });
    }
  }
  const twelveHour = runs.some((run) => run.text === 'AM/PM');
  const hours = date.getUTCHours();
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return runs
    .map((run, index) => {
      if (run.literal) return run.text;
      const letter = run.text[0];
      const width = run.text.length;
      switch (letter) {
        case 'y':
          return width <= 2 ? pad(date.getUTCFullYear() % 100, 2) : String(date.getUTCFullYear());
        case 'M':
        case 'm': {
          if (letter === 'm' && isMinuteContext(runs, index))
            return width >= 2 ? pad(date.getUTCMinutes(), 2) : String(date.getUTCMinutes());
          const month = date.getUTCMonth();
          if (width >= 4) return MONTHS[month] ?? '';
          if (width === 3) return (MONTHS[month] ?? '').slice(0, 3);
          return width === 2 ? pad(month + 1, 2) : String(month + 1);
        }
        case 'd':
        case 'D': {
          const weekday = WEEKDAYS[date.getUTCDay()] ?? '';
          if (width >= 4) return weekday;
          if (width === 3) return weekday.slice(0, 3);
          return width === 2 ? pad(date.getUTCDate(), 2) : String(date.getUTCDate());
        }
        case 'h':
        case 'H': {
          const shown = letter === 'h' && twelveHour ? ((hours + 11) % 12) + 1 : hours;
          return width >= 2 ? pad(shown, 2) : String(shown);
        }
        case 's':
          return width >= 2 ? pad(date.getUTCSeconds(), 2) : String(date.getUTCSeconds());
        case 'A':
          return hours < 12 ? 'AM' : 'PM';
        default:
          return run.text;
      }
    })
    .join('');
}

function isMinuteContext(runs: Array<{ literal: boolean; text: string }>, index: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const run = runs[i] as { literal: boolean; text: string };
    if (run.literal) continue;
    if (/^[hH]/.test(run.text)) return true;
    break;
  }
  for (let i = index + 1; i < runs.length; i++) {
    const run = runs[i] as { literal: boolean; text: string };
    if (run.literal) continue;
    return run.text.startsWith('s');
  }
  return false;
}
