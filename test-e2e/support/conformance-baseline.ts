import { readFile } from 'node:fs/promises';
import { isScalar, isSeq, parseDocument } from 'yaml';
import { type CheckResult, failing } from './conformance-suite.ts';

/** One line of an expected-failures file: a whole scenario, or `<scenario>:<check-id>`. */
export interface BaselineEntry {
  entry: string;
  scenario: string;
  checkId?: string;
  /** The comment on the entry, or on the nearest entry above it with no blank line between. */
  reason?: string;
}

/** The `server` entries of an expected-failures file, each with the reason written for it. */
export async function readBaseline(file: string): Promise<BaselineEntry[]> {
  const document = parseDocument(await readFile(file, 'utf8'));
  if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
  const server = document.get('server', true);
  if (server === undefined) return [];
  if (!isSeq(server)) throw new Error(`${file}: "server" must be a list`);
  let reason: string | undefined;
  return server.items.map((item, index) => {
    if (!isScalar(item) || typeof item.value !== 'string') {
      throw new Error(`${file}: entry ${index + 1} is not a string (write "scenario:check", no space)`);
    }
    // yaml puts the comment above the first item on the list itself.
    const own = item.comment ?? item.commentBefore ?? (index === 0 ? server.commentBefore : undefined);
    if (own) reason = own.trim();
    else if (item.spaceBefore) reason = undefined;
    const [scenario, checkId] = item.value.split(/:(.*)/s) as [string, string | undefined];
    return { entry: item.value, scenario, ...(checkId ? { checkId } : {}), ...(reason ? { reason } : {}) };
  });
}

/**
 * What is wrong with a baseline besides what the suite itself catches (a failure not listed, a
 * listed scenario or check that passed): an entry without a reason, one naming a scenario the
 * requirement set does not score (a typo, or a scenario that runs only for visibility and cannot
 * fail the run anyway), a scenario that did not run, and a per-check entry whose check did not
 * fail — the suite tolerates an absent check, so such an entry would go stale unnoticed.
 */
export function baselineProblems(
  entries: BaselineEntry[],
  required: string[],
  results: Map<string, CheckResult[]>,
): string[] {
  const problems: string[] = [];
  for (const { entry, scenario, checkId, reason } of entries) {
    if (!reason) problems.push(`${entry}: no reason (a comment on the entry or heading its group)`);
    if (!required.includes(scenario)) {
      problems.push(`${entry}: not a scenario this requirement set scores; remove it`);
      continue;
    }
    const checks = results.get(scenario);
    if (!checks) {
      problems.push(`${entry}: the scenario did not run`);
      continue;
    }
    if (checkId && !checks.some((check) => check.id === checkId && failing(check))) {
      const seen = checks.find((check) => check.id === checkId)?.status ?? 'absent';
      problems.push(`${entry}: the check did not fail (${seen}); remove the entry`);
    } else if (!checkId && !checks.some(failing)) {
      problems.push(`${entry}: the scenario passed; remove the entry`);
    }
  }
  return problems;
}

/** One line per scenario: ✓ or ✗, and each failing check with its message. */
export function scenarioTable(results: Map<string, CheckResult[]>, required: string[]): string {
  const lines: string[] = [];
  for (const [scenario, checks] of results) {
    const failed = checks.filter(failing);
    const scored = required.includes(scenario) ? '' : ' (not scored)';
    lines.push(`${failed.length === 0 ? '✓' : '✗'} ${scenario}${scored}`);
    for (const check of failed) {
      const message = check.errorMessage ?? check.details?.message ?? '';
      lines.push(`    ${check.status} ${check.id}: ${message.slice(0, 400)}`);
    }
  }
  return lines.join('\n');
}
