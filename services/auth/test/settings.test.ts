import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '@sheetgate/test-harness';
import { describe, expect, it } from 'vitest';

const main = path.join(repoRoot, 'services/auth/src/main.ts');

function runAuth(env: Record<string, string>) {
  return spawnSync(process.execPath, [main], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('auth settings at start', () => {
  it('stops with one line naming a bad setting', () => {
    const result = runAuth({
      AUTH_PORT: 'not-a-port',
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      INTERNAL_SERVICE_TOKEN: 'x'.repeat(40),
    });
    expect(result.status).toBe(78);
    expect(result.stderr.trim().split('\n')).toEqual([
      'auth: invalid setting AUTH_PORT: expected a port number (got "not-a-port")',
    ]);
  });

  it('names every missing required setting, one line each', () => {
    const result = runAuth({});
    expect(result.status).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^auth: invalid setting DATABASE_URL: .*\(it is not set\)$/);
    expect(lines[1]).toMatch(/^auth: invalid setting INTERNAL_SERVICE_TOKEN: .*\(it is not set\)$/);
  });
});
