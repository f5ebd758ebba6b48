import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/** The official MCP conformance suite as its package ships it (a devDependency of test-e2e). */
const PACKAGE_DIR = path.dirname(
  fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/package.json')),
);

export type Requirements = '2026-07-28' | '2025-11-25';

export interface SuiteRun {
  /** The CLI's exit code; null when it was killed at the deadline. */
  code: number | null;
  /** stdout and stderr as they came: the suite's own report, scenario by scenario. */
  output: string;
}

/**
 * `conformance server` against `url` for one requirement set, with a baseline of expected
 * failures, writing one folder per scenario (with its `checks.json`) under `resultsDir`. Exit 0:
 * every required scenario passed or failed only as the baseline says; 1: a failure not in the
 * baseline, or an entry that passes now. Killed at `deadlineMs`, so a hung scenario ends the run
 * with what was printed so far rather than outliving the test.
 */
export function runConformance(options: {
  url: string;
  requirements: Requirements;
  expectedFailures: string;
  resultsDir: string;
  scenarioTimeoutMs: number;
  deadlineMs: number;
}): Promise<SuiteRun> {
  const args = [
    path.join(PACKAGE_DIR, 'dist/index.js'),
    'server',
    '--url',
    options.url,
    '--requirements',
    options.requirements,
    '--expected-failures',
    options.expectedFailures,
    '-o',
    options.resultsDir,
    '--timeout',
    String(options.scenarioTimeoutMs),
  ];
  // NO_COLOR: the report is read in test output and logs, not a terminal.
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const deadline = setTimeout(() => {
    output += `\n[test] the suite was still running after ${options.deadlineMs / 1000} s: killed\n`;
    child.kill('SIGKILL');
  }, options.deadlineMs);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, output });
    });
  });
}

/** The server scenarios a requirement set scores (its `not_scored` ones run but cannot fail it). */
export async function requiredServerScenarios(requirements: Requirements): Promise<string[]> {
  const text = await readFile(path.join(PACKAGE_DIR, 'requirements', `${requirements}.yaml`), 'utf8');
  const set = parseYaml(text) as { server?: unknown };
  if (!Array.isArray(set.server)) throw new Error(`requirements/${requirements}.yaml has no server list`);
  return set.server.map(String);
}

export interface CheckResult {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
  details?: { message?: string };
}

/** A folder the suite writes per scenario: `server-<scenario>-<ISO time with dashes>`. */
const RESULT_FOLDER = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;
const startedAt = (folder: string) => folder.slice(-'2026-01-01T00-00-00-000Z'.length);

/** Every scenario's checks from a results folder, by scenario name, in the order they ran. */
export async function readResults(resultsDir: string): Promise<Map<string, CheckResult[]>> {
  const scenarios = new Map<string, CheckResult[]>();
  const folders = (await readdir(resultsDir)).sort((a, b) => startedAt(a).localeCompare(startedAt(b)));
  for (const folder of folders) {
    const scenario = RESULT_FOLDER.exec(folder)?.[1];
    if (!scenario) continue;
    const file = path.join(resultsDir, folder, 'checks.json');
    const checks = JSON.parse(await readFile(file, 'utf8').catch(() => '[]')) as CheckResult[];
    scenarios.set(scenario, checks);
  }
  return scenarios;
}

/** What the suite counts as failing (its own rule: a WARNING fails a scenario too). */
export function failing(check: CheckResult): boolean {
  return check.status === 'FAILURE' || check.status === 'WARNING';
}
