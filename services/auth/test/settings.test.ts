import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { generateLocalSecrets, repoRoot } from '@sheetgate/test-harness';
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
      ...generateLocalSecrets(),
      GOOGLE_CLIENT_ID: 'id',
      GOOGLE_CLIENT_SECRET: 'secret',
      AUTH_PORT: 'not-a-port',
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      INTERNAL_SERVICE_TOKEN: 'x'.repeat(40),
    });
    expect(result.status).toBe(78);
    expect(result.stderr.trim().split('\n')).toEqual([
      'auth: invalid setting AUTH_PORT: expected a port number (got "not-a-port")',
    ]);
  });

  it.each([
    ['not JSON', '{sheetsReads'],
    ['an unknown name', '{"sheetsReadsPerMinute":10}'],
    ['zero', '{"sheetsReadsPerMinutePerUser":0}'],
    ['a fraction', '{"driveRequestsPerMinutePerProject":1.5}'],
  ])('stops on GOOGLE_QUOTAS with %s, naming the names it takes', (_, value) => {
    const result = runAuth({
      ...generateLocalSecrets(),
      GOOGLE_CLIENT_ID: 'id',
      GOOGLE_CLIENT_SECRET: 'secret',
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      INTERNAL_SERVICE_TOKEN: 'x'.repeat(40),
      GOOGLE_QUOTAS: value,
    });
    expect(result.status).toBe(78);
    expect(result.stderr.trim().split('\n')).toEqual([
      `auth: invalid setting GOOGLE_QUOTAS: expected JSON like {"sheetsReadsPerMinutePerProject":1200} (names: sheetsReadsPerMinutePerProject, sheetsReadsPerMinutePerUser, sheetsWritesPerMinutePerProject, sheetsWritesPerMinutePerUser, driveRequestsPerMinutePerProject, driveRequestsPerMinutePerUser; whole numbers from 1) (got ${JSON.stringify(value)})`,
    ]);
  });

  it('never prints a secret it refuses, nor a URL password (stderr reaches logs)', () => {
    const result = runAuth({
      GOOGLE_CLIENT_ID: 'id',
      GOOGLE_CLIENT_SECRET: 'secret',
      INTERNAL_SERVICE_TOKEN: 'token-hunter2',
      API_KEY_PEPPER: 'pepper-hunter2',
      AUTH_COOKIE_KEYS: 'cookie-hunter2',
      AUTH_ENCRYPTION_KEYS: `k1:${Buffer.from('hunter2').toString('base64')}`,
      DATABASE_URL: 'mysql://admin:hunter2@db.internal/sheetgate',
      REDIS_URL: 'http://:hunter2@cache.internal:6379/0?password=hunter2',
    });
    expect(result.status).toBe(78);
    const lines = result.stderr.trim().split('\n');
    expect(lines.map((line) => /^auth: invalid setting (\w+): /.exec(line)?.[1]).sort()).toEqual([
      'API_KEY_PEPPER',
      'AUTH_COOKIE_KEYS',
      'AUTH_ENCRYPTION_KEYS',
      'DATABASE_URL',
      'INTERNAL_SERVICE_TOKEN',
      'REDIS_URL',
    ]);
    expect(result.stderr).not.toMatch(/hunter2|aHVudGVyMg|admin/);
    expect(lines.find((line) => line.includes('API_KEY_PEPPER'))).toMatch(/\(got 14 characters\)$/);
    expect(lines.find((line) => line.includes('AUTH_ENCRYPTION_KEYS'))).toContain('key k1 must be 32 bytes');
    expect(lines.find((line) => line.includes('DATABASE_URL'))).toContain(
      '(got "mysql://…@db.internal/sheetgate")',
    );
    expect(lines.find((line) => line.includes('REDIS_URL'))).toContain(
      '(got "http://…@cache.internal:6379/0?…")',
    );
  });

  it('stops when REVOCATION_STALE_AFTER_MS is under two heartbeats, saying how long it must be', () => {
    const result = runAuth({
      ...generateLocalSecrets(),
      GOOGLE_CLIENT_ID: 'id',
      GOOGLE_CLIENT_SECRET: 'secret',
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
      INTERNAL_SERVICE_TOKEN: 'x'.repeat(40),
      REVOCATION_HEARTBEAT_MS: '300',
      REVOCATION_STALE_AFTER_MS: '500',
    });
    expect(result.status).toBe(78);
    expect(result.stderr.trim().split('\n')).toEqual([
      'auth: invalid setting REVOCATION_STALE_AFTER_MS: must be at least 2 heartbeats (600 ms with REVOCATION_HEARTBEAT_MS 300) (got "500")',
    ]);
  });

  it('names every missing required setting, one line each', () => {
    const result = runAuth({});
    expect(result.status).toBe(78);
    const lines = result.stderr.trim().split('\n');
    const required = [
      'DATABASE_URL',
      'INTERNAL_SERVICE_TOKEN',
      'AUTH_ENCRYPTION_KEYS',
      'API_KEY_PEPPER',
      'AUTH_COOKIE_KEYS',
      'GOOGLE_CLIENT_ID',
      'GOOGLE_CLIENT_SECRET',
    ];
    expect(lines).toHaveLength(required.length);
    for (const name of required) {
      expect(
        lines.filter(
          (line) => line.startsWith(`auth: invalid setting ${name}: `) && line.endsWith('(it is not set)'),
        ),
      ).toHaveLength(1);
    }
  });
});
