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

  it('never echoes a long value in full', () => {
    const secretish = `postgres-not-a-url-${'s3cr3t'.repeat(20)}`;
    const [line] = errorLines({ ...valid, DATABASE_URL: secretish });
    expect(line).not.toContain(secretish);
  });
});
