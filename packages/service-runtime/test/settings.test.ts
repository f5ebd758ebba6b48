import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseSettings, SettingsError, setting } from '../src/settings.ts';

const schema = z.object({
  BASE_URL: setting.baseUrl().default('http://localhost:8080'),
  SOME_PORT: setting.port(8081),
  DATABASE_URL: setting.url(['postgres', 'postgresql']),
  SERVICE_TOKEN: setting.secret(32),
  LOG_LEVEL: setting.logLevel(),
});

function errorLines(env: Record<string, string>): string[] {
  try {
    parseSettings('svc', schema, env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as SettingsError).message.split('\n');
  }
  throw new Error('expected a SettingsError');
}

const valid = { DATABASE_URL: 'postgres://db/x', SERVICE_TOKEN: 'x'.repeat(32) };

describe('parseSettings', () => {
  it('applies defaults and coerces types', () => {
    const settings = parseSettings('svc', schema, valid);
    expect(settings).toEqual({
      ...valid,
      BASE_URL: 'http://localhost:8080',
      SOME_PORT: 8081,
      LOG_LEVEL: 'info',
    });
  });

  it('strips a trailing slash from the base URL', () => {
    expect(parseSettings('svc', schema, { ...valid, BASE_URL: 'https://sheets.example.com/' }).BASE_URL).toBe(
      'https://sheets.example.com',
    );
  });

  it('treats an empty variable as unset', () => {
    expect(parseSettings('svc', schema, { ...valid, SOME_PORT: '' }).SOME_PORT).toBe(8081);
  });

  it('reports one line per bad setting, each naming the variable', () => {
    const lines = errorLines({ SOME_PORT: 'eighty', BASE_URL: 'https://x.example/path', LOG_LEVEL: 'loud' });
    expect(lines).toHaveLength(5);
    for (const name of ['SOME_PORT', 'BASE_URL', 'DATABASE_URL', 'SERVICE_TOKEN', 'LOG_LEVEL']) {
      expect(lines.filter((line) => line.startsWith(`svc: invalid setting ${name}:`))).toHaveLength(1);
    }
    expect(lines.find((line) => line.includes('DATABASE_URL'))).toContain('it is not set');
  });

  it.each([
    ['0', 'SOME_PORT'],
    ['65536', 'SOME_PORT'],
    ['80.5', 'SOME_PORT'],
  ])('refuses port %s', (value, name) => {
    expect(errorLines({ ...valid, [name]: value })[0]).toMatch(/^svc: invalid setting SOME_PORT: .*port/);
  });

  it('refuses a URL of the wrong scheme', () => {
    expect(errorLines({ ...valid, DATABASE_URL: 'mysql://db/x' })[0]).toContain(
      'expected a URL (postgres or postgresql)',
    );
  });

  it('never echoes a secret, declared or named like one, only its length', () => {
    const short = 'hunter2-pepper';
    const lines = errorLines({
      ...valid,
      SERVICE_TOKEN: short,
    });
    expect(lines).toEqual([
      'svc: invalid setting SERVICE_TOKEN: expected a secret of at least 32 characters (got 14 characters)',
    ]);
    const named = z.object({
      GOOGLE_CLIENT_SECRET: z.string().min(20),
      AUTH_COOKIE_KEYS: z.string().min(32),
      AUTH_SIGNING_KEYS: z.string().startsWith('{'),
      INTERNAL_SERVICE_TOKEN: z.string().min(32).optional(),
    });
    const values = {
      GOOGLE_CLIENT_SECRET: 'GOCSPX-short',
      AUTH_COOKIE_KEYS: 'cookie-key-hunter2',
      AUTH_SIGNING_KEYS: '[{"d":"private-part"}]',
      INTERNAL_SERVICE_TOKEN: 'token-hunter2',
    };
    let message = '';
    try {
      parseSettings('svc', named, values);
    } catch (error) {
      message = (error as SettingsError).message;
    }
    expect(message.split('\n')).toHaveLength(4);
    for (const [name, value] of Object.entries(values)) {
      expect(message).toContain(`invalid setting ${name}: `);
      expect(message).toContain(`(got ${value.length} characters)`);
      expect(message).not.toContain(value);
    }
  });

  it.each([
    ['mysql://admin:hunter2@db.internal:3306/x', 'mysql://…@db.internal:3306/x'],
    ['admin:hunter2@db.internal:5432/x', '…@db.internal:5432/x'],
    ['mysql://db.internal/x?password=hunter2&sslmode=require', 'mysql://db.internal/x?…'],
    ['mysql://:hunter2@db.internal?user=admin', 'mysql://…@db.internal?…'],
  ])('strips credentials from a URL it refuses: %s', (url, shown) => {
    const [line] = errorLines({ ...valid, DATABASE_URL: url });
    expect(line).toBe(
      `svc: invalid setting DATABASE_URL: expected a URL (postgres or postgresql) (got ${JSON.stringify(shown)})`,
    );
    expect(line).not.toMatch(/hunter2|admin/);
  });

  it('never echoes a long value in full', () => {
    const secretish = `postgres-not-a-url-${'s3cr3t'.repeat(20)}`;
    const [line] = errorLines({ ...valid, DATABASE_URL: secretish });
    expect(line).not.toContain(secretish);
  });
});
