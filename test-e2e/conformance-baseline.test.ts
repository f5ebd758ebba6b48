import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baselineProblems, readBaseline } from './support/conformance-baseline.ts';
import type { CheckResult } from './support/conformance-suite.ts';

// The checks mcp-conformance.test.ts adds to the suite's own on an expected-failures file
// (no stack: files written here).

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-baseline-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function baseline(text: string) {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.yml`);
  await writeFile(file, text);
  return readBaseline(file);
}

const check = (id: string, status: CheckResult['status']): CheckResult => ({ id, status });

describe('readBaseline', () => {
  it('gives each entry its own comment, or the one heading its group up to a blank line', async () => {
    const entries = await baseline(
      [
        '# the file',
        'server:',
        '  # group one',
        '  - a',
        '  - b # its own',
        '  - c',
        '',
        '  - d',
        '  - e:check-1 # one check',
      ].join('\n'),
    );
    expect(entries).toEqual([
      { entry: 'a', scenario: 'a', reason: 'group one' },
      { entry: 'b', scenario: 'b', reason: 'its own' },
      { entry: 'c', scenario: 'c', reason: 'its own' },
      { entry: 'd', scenario: 'd' },
      { entry: 'e:check-1', scenario: 'e', checkId: 'check-1', reason: 'one check' },
    ]);
  });

  it('refuses `- scenario: check` (a mapping), a non-list and broken YAML, naming the file', async () => {
    await expect(baseline('server:\n  - a: b\n')).rejects.toThrow(/entry 1 is not a string/);
    await expect(baseline('server: a\n')).rejects.toThrow(/"server" must be a list/);
    await expect(baseline('server: [a\n')).rejects.toThrow(/\.yml: /);
  });

  it('reads an empty file or one without a server list as no entries', async () => {
    expect(await baseline('')).toEqual([]);
    expect(await baseline('client:\n  - x # y\n')).toEqual([]);
  });
});

describe('baselineProblems', () => {
  const results = new Map<string, CheckResult[]>([
    ['failing', [check('one', 'FAILURE'), check('two', 'SUCCESS')]],
    ['warned', [check('only', 'WARNING')]],
    ['passing', [check('one', 'SUCCESS'), check('info', 'INFO')]],
  ]);
  const required = ['failing', 'warned', 'passing', 'absent'];

  it('accepts entries that failed as listed, a WARNING counting as a failure', () => {
    const entries = [
      { entry: 'failing', scenario: 'failing', reason: 'r' },
      { entry: 'warned:only', scenario: 'warned', checkId: 'only', reason: 'r' },
    ];
    expect(baselineProblems(entries, required, results)).toEqual([]);
  });

  it('names every entry that is unexplained, unscored, did not run, or did not fail', () => {
    const entries = [
      { entry: 'failing', scenario: 'failing' },
      { entry: 'typo', scenario: 'typo', reason: 'r' },
      { entry: 'absent', scenario: 'absent', reason: 'r' },
      { entry: 'passing', scenario: 'passing', reason: 'r' },
      { entry: 'failing:two', scenario: 'failing', checkId: 'two', reason: 'r' },
      { entry: 'failing:gone', scenario: 'failing', checkId: 'gone', reason: 'r' },
    ];
    expect(baselineProblems(entries, required, results)).toEqual([
      'failing: no reason (a comment on the entry or heading its group)',
      'typo: not a scenario this requirement set scores; remove it',
      'absent: the scenario did not run',
      'passing: the scenario passed; remove the entry',
      'failing:two: the check did not fail (SUCCESS); remove the entry',
      'failing:gone: the check did not fail (absent); remove the entry',
    ]);
  });
});
