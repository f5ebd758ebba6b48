import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../src/embedded-postgres.ts';

// PGlite asks no password: who may connect is decided by who may reach its socket. Another user
// of the machine is tried for real (a child process as `nobody`) where this runs as root.

let dataDir: string;
let database: EmbeddedPostgres;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-embedded-'));
  database = await startEmbeddedPostgres({
    dataDir: path.join(dataDir, 'postgres'),
    socketDir: path.join(dataDir, 'postgres-socket'),
  });
}, 60_000);

afterAll(async () => {
  await database?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Where a `pg` client connects for this URL: the socket file in `?host=`, else host and port. */
function endpointOf(url: string): { path: string } | { host: string; port: number } {
  const parsed = new URL(url);
  const socketDir = parsed.searchParams.get('host');
  if (socketDir?.startsWith('/')) return { path: path.join(socketDir, '.s.PGSQL.5432') };
  return { host: parsed.hostname, port: Number(parsed.port || 5432) };
}

/** Opens a connection to the database's endpoint as `uid` (a child process); its outcome. */
function connectAs(uid: number | undefined, url: string): Promise<string> {
  const script = `const net = require('node:net');
const socket = net.connect(${JSON.stringify(endpointOf(url))});
socket.on('connect', () => { console.log('connected'); socket.destroy(); });
socket.on('error', (error) => console.log(error.code));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], {
      ...(uid === undefined ? {} : { uid, gid: uid }),
      cwd: '/',
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', () => resolve(output.trim()));
  });
}

describe('the embedded PostgreSQL', () => {
  it('listens on no TCP port, only on a socket in a folder of mode 0700', async () => {
    const endpoint = endpointOf(database.url);
    expect(endpoint).toEqual({ path: path.join(dataDir, 'postgres-socket', '.s.PGSQL.5432') });
    expect((await stat(path.join(dataDir, 'postgres-socket'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dataDir, 'postgres-socket', '.s.PGSQL.5432'))).isSocket()).toBe(true);
  });

  it('accepts this user', async () => {
    expect(await connectAs(undefined, database.url)).toBe('connected');
  });

  it.skipIf(process.getuid?.() !== 0)('refuses another local user (nobody)', async () => {
    expect(await connectAs(65534, database.url)).toBe('EACCES');
  });

  it('keeps an in-memory database private too, in a temporary folder it removes', async () => {
    const memory = await startEmbeddedPostgres({});
    const socket = (endpointOf(memory.url) as { path: string }).path;
    expect((await stat(path.dirname(socket))).mode & 0o777).toBe(0o700);
    expect(await connectAs(undefined, memory.url)).toBe('connected');
    await memory.close();
    await expect(stat(path.dirname(socket))).rejects.toThrow(/ENOENT/);
  });
});
