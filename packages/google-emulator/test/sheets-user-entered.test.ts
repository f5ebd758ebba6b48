import { describe, expect, it } from 'vitest';
import { formatNumber } from '../src/sheets/number-format.ts';
import { cellFromInput, parseUserEntered } from '../src/sheets/user-entered.ts';

const value = (text: string) => parseUserEntered(text).userEnteredValue;
const format = (text: string) => parseUserEntered(text).userEnteredFormat?.numberFormat;

describe('USER_ENTERED parsing', () => {
  it('reads numbers with signs, decimals, thousands separators and exponents', () => {
    expect(value('42')).toEqual({ numberValue: 42 });
    expect(value('-3.5')).toEqual({ numberValue: -3.5 });
    expect(value('+7')).toEqual({ numberValue: 7 });
    expect(value('.5')).toEqual({ numberValue: 0.5 });
    expect(value('1,234,567.25')).toEqual({ numberValue: 1234567.25 });
    expect(format('1,234')).toEqual({ type: 'NUMBER', pattern: '#,##0' });
    expect(value('1.5e3')).toEqual({ numberValue: 1500 });
    expect(format('1.5e3')).toEqual({ type: 'SCIENTIFIC', pattern: '0.00E+00' });
    expect(format('42')).toBeUndefined();
  });

  it('keeps malformed numbers as text', () => {
    expect(value('1,23')).toEqual({ stringValue: '1,23' });
    expect(value('12abc')).toEqual({ stringValue: '12abc' });
    expect(value('1.2.3')).toEqual({ stringValue: '1.2.3' });
  });

  it('reads percentages and currency with their formats', () => {
    expect(value('12%')).toEqual({ numberValue: 0.12 });
    expect(format('12%')).toEqual({ type: 'PERCENT', pattern: '0%' });
    expect(format('12.5%')).toEqual({ type: 'PERCENT', pattern: '0.00%' });
    expect(value('$1,234.50')).toEqual({ numberValue: 1234.5 });
    expect(format('$1,234.50')).toEqual({ type: 'CURRENCY', pattern: '"$"#,##0.00' });
    expect(value('-$5')).toEqual({ numberValue: -5 });
  });

  it('reads booleans in any case', () => {
    expect(value('TRUE')).toEqual({ boolValue: true });
    expect(value('false')).toEqual({ boolValue: false });
  });

  it('reads dates and date-times as serial numbers with a date format', () => {
    expect(value('2024-03-05')).toEqual({ numberValue: 45356 });
    expect(format('2024-03-05')).toEqual({ type: 'DATE', pattern: 'yyyy-mm-dd' });
    expect(value('3/5/2024')).toEqual({ numberValue: 45356 });
    expect(format('3/5/2024')).toEqual({ type: 'DATE', pattern: 'M/d/yyyy' });
    expect(value('1900-01-01')).toEqual({ numberValue: 2 });
    expect(value('2024-03-05 12:00')).toEqual({ numberValue: 45356.5 });
    expect(format('2024-03-05 12:00')?.type).toBe('DATE_TIME');
    expect(value('18:00')).toEqual({ numberValue: 0.75 });
    expect(format('6:00 PM')).toEqual({ type: 'TIME', pattern: 'h:mm am/pm' });
    expect(value('2024-02-30')).toEqual({ stringValue: '2024-02-30' });
  });

  it('keeps formulas, and a leading apostrophe forces text', () => {
    expect(value('=SUM(A1:A3)')).toEqual({ formulaValue: '=SUM(A1:A3)' });
    expect(value("'123")).toEqual({ stringValue: '123' });
    expect(value("'=1+1")).toEqual({ stringValue: '=1+1' });
  });

  it('stores RAW input as given', () => {
    expect(cellFromInput('=1+1', 'RAW')).toEqual({ userEnteredValue: { stringValue: '=1+1' } });
    expect(cellFromInput('12%', 'RAW')).toEqual({ userEnteredValue: { stringValue: '12%' } });
    expect(cellFromInput(5, 'RAW')).toEqual({ userEnteredValue: { numberValue: 5 } });
    expect(cellFromInput(true, 'USER_ENTERED')).toEqual({ userEnteredValue: { boolValue: true } });
    expect(cellFromInput('', 'USER_ENTERED')).toBeUndefined();
  });
});

describe('number formats', () => {
  it('renders patterns as Sheets shows them', () => {
    expect(formatNumber(1234.5, { type: 'NUMBER', pattern: '#,##0.00' })).toBe('1,234.50');
    expect(formatNumber(1234.5, { type: 'CURRENCY', pattern: '"$"#,##0.00' })).toBe('$1,234.50');
    expect(formatNumber(-5, { type: 'CURRENCY', pattern: '"$"#,##0.00' })).toBe('-$5.00');
    expect(formatNumber(0.12, { type: 'PERCENT', pattern: '0%' })).toBe('12%');
    expect(formatNumber(0.125, { type: 'PERCENT' })).toBe('12.50%');
    expect(formatNumber(1500, { type: 'SCIENTIFIC', pattern: '0.00E+00' })).toBe('1.50E+03');
    expect(formatNumber(45356, { type: 'DATE', pattern: 'yyyy-mm-dd' })).toBe('2024-03-05');
    expect(formatNumber(45356, { type: 'DATE', pattern: 'M/d/yyyy' })).toBe('3/5/2024');
    expect(formatNumber(45356.75, { type: 'DATE_TIME', pattern: 'M/d/yyyy H:mm:ss' })).toBe(
      '3/5/2024 18:00:00',
    );
    expect(formatNumber(0.75, { type: 'TIME', pattern: 'h:mm am/pm' })).toBe('6:00 PM');
    expect(formatNumber(45356, { type: 'DATE', pattern: 'dddd, mmmm d, yyyy' })).toBe(
      'Tuesday, March 5, 2024',
    );
  });

  it('renders the automatic format', () => {
    expect(formatNumber(42, undefined)).toBe('42');
    expect(formatNumber(-0.5, undefined)).toBe('-0.5');
    expect(formatNumber(1 / 3, undefined)).toBe('0.3333333333');
    expect(formatNumber(0.1 + 0.2, undefined)).toBe('0.3');
    expect(formatNumber(1e20, undefined)).toBe('1E+20');
  });
});
