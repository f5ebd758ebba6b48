import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the CLI (src/main.ts)', () => {
  it('prints a line with "listening" and its URL, serves the configured accounts and client, and stops on SIGTERM', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const cli = run({
      GOOGLE_EMULATOR_PORT: String(port),
      GOOGLE_EMULATOR_ACCOUNTS: 'carol@example.com, dave@example.com',
      GOOGLE_CLIENT_ID: 'cli-client',
      GOOGLE_CLIENT_SECRET: 'cli-secret',
      GOOGLE_EMULATOR_REDIRECT_URIS: 'http://127.0.0.1:9/cb',
      GOOGLE_EMULATOR_SCOPE_CHECKBOXES: 'unticked',
      LOG_LEVEL: 'info',
    });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && !/listening/.test(cli.output()); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(cli.output()).toMatch(new RegExp(`listening.*${url}`));
    const page = await fetch(
      `${url}/o/oauth2/v2/auth?client_id=cli-client&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/cb')}&response_type=code&scope=openid`,
    );
    const html = await page.text();
    expect(html).toContain('>carol@example.com</button>');
    expect(html).not.toContain('alice@example.com');
    const twoScopes = await fetch(
      `${url}/o/oauth2/v2/auth?client_id=cli-client&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/cb')}&response_type=code&scope=${encodeURIComponent('https://www.googleapis.com/auth/spreadsheets https://www.googleapis.com/auth/drive.file')}`,
    );
    const granular = await twoScopes.text();
    expect(granular).toContain('Select all');
    expect(granular).toContain('name="scope"');
    expect(granular).not.toMatch(/\schecked\b/);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('refuses bad settings with one line each and exit status 78', async () => {
    const cli = run({
      GOOGLE_EMULATOR_PORT: 'abc',
      GOOGLE_EMULATOR_ACCESS_TOKEN_TTL: '-5',
      GOOGLE_EMULATOR_URL: 'not a url',
      GOOGLE_EMULATOR_AUTHORIZATION_CODE_TTL: '7200',
      GOOGLE_EMULATOR_SCOPE_CHECKBOXES: 'sometimes',
    });
    expect(await cli.exited).toBe(78);
    const lines = cli.output().trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(cli.output()).toMatch(/GOOGLE_EMULATOR_SCOPE_CHECKBOXES/);
    expect(cli.output()).toMatch(/GOOGLE_EMULATOR_AUTHORIZATION_CODE_TTL/);
    expect(cli.output()).toMatch(/GOOGLE_EMULATOR_PORT/);
    expect(cli.output()).toMatch(/GOOGLE_EMULATOR_ACCESS_TOKEN_TTL/);
    expect(cli.output()).toMatch(/GOOGLE_EMULATOR_URL/);
  });
});
