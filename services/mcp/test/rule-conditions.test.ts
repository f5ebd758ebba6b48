import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../src/errors/tool-error.ts';
import { colorScaleInput } from '../src/tools/sets/rules/color-scale.ts';
import {
  conditionGiven,
  FORMAT_CONDITIONS,
  formatCondition,
  VALIDATION_CONDITIONS,
  validationCondition,
} from '../src/tools/sets/rules/rule-conditions.ts';

// A rule's condition as one text (issue 35, item 9): the type, then its values. The tools over
// the emulator are in rule-tools.test.ts; here, how the text is read and what is refused.

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe('conditionGiven', () => {
  it('reads the type in any case and the values after it, as each type takes them', () => {
    expect(conditionGiven('number_greater 500', [], FORMAT_CONDITIONS)).toEqual({
      type: 'NUMBER_GREATER',
      values: ['500'],
    });
    expect(conditionGiven('  NUMBER_BETWEEN   1   10 ', [], FORMAT_CONDITIONS)).toEqual({
      type: 'NUMBER_BETWEEN',
      values: ['1', '10'],
    });
    expect(conditionGiven('TEXT_CONTAINS to do', [], FORMAT_CONDITIONS).values).toEqual(['to do']);
    expect(conditionGiven('TEXT_EQ "Paid, late"', [], FORMAT_CONDITIONS).values).toEqual(['Paid, late']);
    expect(conditionGiven('CUSTOM_FORMULA =AND($B2>0, $C2="x")', [], FORMAT_CONDITIONS).values).toEqual([
      '=AND($B2>0, $C2="x")',
    ]);
    expect(conditionGiven('ONE_OF_LIST Open, Done ,Blocked', [], VALIDATION_CONDITIONS).values).toEqual([
      'Open',
      'Done',
      'Blocked',
    ]);
    expect(conditionGiven('DATE_BETWEEN 2026-01-01 2026-12-31', [], VALIDATION_CONDITIONS).values).toEqual([
      '2026-01-01',
      '2026-12-31',
    ]);
    expect(conditionGiven('BOOLEAN Yes No', [], VALIDATION_CONDITIONS).values).toEqual(['Yes', 'No']);
    expect(conditionGiven('BLANK', [], FORMAT_CONDITIONS)).toEqual({ type: 'BLANK', values: [] });
  });

  it('takes the type alone with its values in values, as before', () => {
    expect(conditionGiven('NUMBER_BETWEEN', ['1', '10'], FORMAT_CONDITIONS)).toEqual({
      type: 'NUMBER_BETWEEN',
      values: ['1', '10'],
    });
    expect(conditionGiven('ONE_OF_LIST', ['a, b', 'c'], VALIDATION_CONDITIONS).values).toEqual(['a, b', 'c']);
  });

  it('refuses a type the tool does not take, naming those it takes and the form', () => {
    const said = refusal(() => conditionGiven('ONE_OF_LIST a', [], FORMAT_CONDITIONS));
    expect(said).toContain('"ONE_OF_LIST" is not a condition type here');
    expect(said).toContain('NOT_BLANK');
    expect(said).toContain('"NUMBER_BETWEEN 1 10"');
    expect(refusal(() => conditionGiven('   ', [], FORMAT_CONDITIONS))).toContain('condition is empty');
  });

  it('refuses values given twice, a value after a type that takes none, and too many values', () => {
    expect(refusal(() => conditionGiven('NUMBER_GREATER 5', ['6'], FORMAT_CONDITIONS))).toContain(
      'after it or in values, not both',
    );
    expect(refusal(() => conditionGiven('BLANK x', [], FORMAT_CONDITIONS))).toContain(
      'BLANK takes no value; "x" was given after it',
    );
    expect(refusal(() => conditionGiven('NUMBER_BETWEEN 1 2 3', [], FORMAT_CONDITIONS))).toContain(
      'NUMBER_BETWEEN takes at most 2 values, 3 given after it: put a value holding spaces in values',
    );
    const items = Array.from({ length: 501 }, (_, index) => `i${index}`).join(',');
    expect(refusal(() => conditionGiven(`ONE_OF_LIST ${items}`, [], VALIDATION_CONDITIONS))).toContain(
      'at most 500 values, 501 given',
    );
  });

  it('refuses an over-long value and echoes hostile text only quoted and cut short', () => {
    expect(refusal(() => conditionGiven(`TEXT_EQ ${'x'.repeat(1_001)}`, [], FORMAT_CONDITIONS))).toContain(
      'longer than 1,000 characters',
    );
    const said = refusal(() =>
      conditionGiven(`<script>"${'a'.repeat(500)} 1`, [], FORMAT_CONDITIONS, 'the condition'),
    );
    expect(said).toContain(`the condition: "<script>\\"${'a'.repeat(31)}…" is not`);
    expect(said.length).toBeLessThan(700);
    expect(refusal(() => conditionGiven('BLANK \u0000\n"x"', [], FORMAT_CONDITIONS))).toContain(
      'BLANK takes no value; "\\u0000\\n\\"x\\"" was given',
    );
  });
});

describe('the condition argument', () => {
  it('refuses with the arguments a type the tool does not take, and text past its bound', () => {
    const input = z.object({ condition: formatCondition });
    expect(input.safeParse({ condition: 'TEXT_CONTAINS x' }).success).toBe(true);
    const wrong = input.safeParse({ condition: 'TEXT_IS_EMAIL' });
    expect(wrong.error?.issues[0]?.message).toContain('"TEXT_IS_EMAIL" is not a condition type here');
    expect(input.safeParse({ condition: '' }).error?.issues[0]?.message).toContain('no condition type');
    expect(input.safeParse({ condition: `TEXT_EQ ${'x'.repeat(20_000)}` }).success).toBe(false);
    expect(input.safeParse({ condition: 7 }).success).toBe(false);
    const validation = z.object({ condition: validationCondition });
    expect(validation.safeParse({ condition: 'ONE_OF_LIST a, b' }).success).toBe(true);
    expect(validation.safeParse({ condition: 'NOT_BLANK' }).success).toBe(false);
  });
});

describe('colorScaleInput', () => {
  it('reads each point from its text, and from the object it was before', () => {
    expect(
      colorScaleInput.parse({
        min: 'min #FFFFFF',
        mid: 'PERCENTILE 50 #ffff00',
        max: 'NUMBER =MAX(B:B) #00ff00',
      }),
    ).toEqual({
      min: { type: 'MIN', color: '#FFFFFF' },
      mid: { type: 'PERCENTILE', value: '50', color: '#ffff00' },
      max: { type: 'NUMBER', value: '=MAX(B:B)', color: '#00ff00' },
    });
    expect(
      colorScaleInput.parse({
        min: { type: 'NUMBER', value: 0, color: '#ffffff' },
        max: { type: 'MAX', color: '#000000' },
      }),
    ).toEqual({
      min: { type: 'NUMBER', value: '0', color: '#ffffff' },
      max: { type: 'MAX', color: '#000000' },
    });
  });

  it('refuses a point without a colour or type, a named colour, a stray key and a missing end, teaching the form', () => {
    for (const min of [
      '#ffffff',
      'MIN',
      'MIN red',
      'MEDIAN 5 #ffffff',
      '',
      { type: 'MIN', colour: '#ffffff' },
      5,
    ]) {
      const result = colorScaleInput.safeParse({ min, max: 'MAX #000000' });
      expect(result.success, JSON.stringify(min)).toBe(false);
      expect(result.error?.issues[0]?.message, JSON.stringify(min)).toContain('"NUMBER 50 #ff0000"');
    }
    expect(colorScaleInput.safeParse({ min: 'MIN #ffffff' }).success).toBe(false);
    expect(
      colorScaleInput.safeParse({ min: `NUMBER ${'9'.repeat(400)} #ffffff`, max: 'MAX #000000' }).success,
    ).toBe(false);
    expect(colorScaleInput.safeParse('MIN #ffffff').success).toBe(false);
  });
});
