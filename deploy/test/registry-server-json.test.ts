import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SERVER_JSON_SCHEMA } from '../registry/server-json.ts';

// `pnpm registry:server-json` (deploy/registry/write-server-json.ts) run as an operator runs it,
// its output held to the official MCP Registry's server.json schema, version 2025-12-11: the
// `ServerDetail` definition of modelcontextprotocol/registry's
// internal/validators/schemas/2025-12-11.json (commit e361b5ff5a925b36a38eda0544bca8230a84558b,
// $id https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json), its required
// fields and their constraints transcribed below, with `remotes` as `RemoteTransport` (a
// `StreamableHttpTransport` or `SseTransport`) and `icons` as `Icon`.

const httpUrl = z.string().regex(/^https?:\/\/[^\s]+$/);
const schema2025_12_11 = z.object({
  $schema: z.url().optional(),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  description: z.string().min(1).max(100),
  // "Version ranges are rejected" (the schema's description; the registry enforces it).
  version: z
    .string()
    .max(255)
    .refine((value) => !/[\^~<>=*|\s]|(^|\.)x(\.|$)/.test(value)),
  title: z.string().min(1).max(100).optional(),
  websiteUrl: z.url().optional(),
  icons: z
    .array(
      z.object({
        src: z.url().max(255),
        mimeType: z.enum(['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp']).optional(),
        sizes: z.array(z.string().regex(/^(\d+x\d+|any)$/)).optional(),
        theme: z.enum(['light', 'dark']).optional(),
      }),
    )
    .optional(),
  remotes: z
    .array(
      z.object({
        type: z.enum(['streamable-http', 'sse']),
        url: httpUrl,
        headers: z.array(z.object({ name: z.string() })).optional(),
      }),
    )
    .optional(),
});

const SCRIPT = fileURLToPath(new URL('../registry/write-server-json.ts', import.meta.url));
const MCP_VERSION = JSON.parse(
  await readFile(new URL('../../services/mcp/package.json', import.meta.url), 'utf8'),
).version as string;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-server-json-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

function generate(env: Record<string, string>, file: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, file],
      { env: { PATH: process.env.PATH, ...env }, cwd: scratch },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('server.json for the official MCP Registry', () => {
  it('is generated for a deployment and valid against the 2025-12-11 schema', async () => {
    const written = await generate(
      { MCP_REGISTRY_NAME: 'com.example/sheetgate', BASE_URL: 'https://sheets.example.com/' },
      'server.json',
    );
    expect(written).toMatchObject({ code: 0, stderr: '' });
    expect(written.stdout.trim()).toBe(path.join(scratch, 'server.json'));
    const document = JSON.parse(await readFile(path.join(scratch, 'server.json'), 'utf8'));
    expect(schema2025_12_11.safeParse(document).error).toBeUndefined();
    expect(document).toEqual({
      $schema: SERVER_JSON_SCHEMA,
      name: 'com.example/sheetgate',
      title: 'Sheetgate',
      description: 'Google Sheets and Drive spreadsheets, for the person who signed in.',
      version: MCP_VERSION,
      websiteUrl: 'https://sheets.example.com/',
      icons: [{ src: 'https://sheets.example.com/icon.svg', mimeType: 'image/svg+xml', sizes: ['any'] }],
      remotes: [{ type: 'streamable-http', url: 'https://sheets.example.com/api/mcp' }],
    });
    expect(SERVER_JSON_SCHEMA).toBe(
      'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    );
  });

  it('takes the operator’s description', async () => {
    const written = await generate(
      {
        MCP_REGISTRY_NAME: 'io.github.alice/sheets',
        BASE_URL: 'https://sheets.alice.example',
        MCP_REGISTRY_DESCRIPTION: 'Our team’s spreadsheets, for Claude and ChatGPT.',
      },
      'alice.json',
    );
    expect(written.code).toBe(0);
    const document = JSON.parse(await readFile(path.join(scratch, 'alice.json'), 'utf8'));
    expect(schema2025_12_11.safeParse(document).error).toBeUndefined();
    expect(document).toMatchObject({
      name: 'io.github.alice/sheets',
      description: 'Our team’s spreadsheets, for Claude and ChatGPT.',
    });
  });

  it.each([
    ['no name', { MCP_REGISTRY_NAME: '' }, /MCP_REGISTRY_NAME is not set/],
    ['a name without a namespace', { MCP_REGISTRY_NAME: 'sheetgate' }, /reverse-DNS/],
    ['a namespace that is not reverse-DNS', { MCP_REGISTRY_NAME: 'example/sheetgate' }, /reverse-DNS/],
    ['two slashes', { MCP_REGISTRY_NAME: 'com.example/sheets/gate' }, /reverse-DNS/],
    ['an http origin', { BASE_URL: 'http://sheets.example.com' }, /public https origin/],
    ['localhost', { BASE_URL: 'https://localhost:8443' }, /public https origin/],
    ['a path', { BASE_URL: 'https://example.com/sheets' }, /public https origin/],
    ['a description over 100 characters', { MCP_REGISTRY_DESCRIPTION: 'x'.repeat(101) }, /at most 100/],
  ])('refuses %s, writing nothing', async (_name, env, message) => {
    const file = `refused-${Math.random().toString(36).slice(2)}.json`;
    const written = await generate(
      { MCP_REGISTRY_NAME: 'com.example/sheetgate', BASE_URL: 'https://sheets.example.com', ...env },
      file,
    );
    expect(written.code).toBe(78);
    expect(written.stderr).toMatch(message);
    await expect(readFile(path.join(scratch, file))).rejects.toThrow(/ENOENT/);
  });
});
