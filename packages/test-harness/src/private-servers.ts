import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';

// PostgreSQL and Redis servers of one test file's own, which it may stop and start at will: the
// shared servers on 5432 and 6379 serve every other test file and must never go down.

const run = promisify(execFile);

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const newest = readdirSync(root)
    .filter((version) => existsSync(path.join(root, version, 'bin/pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return newest ? path.join(root, newest, 'bin') : undefined;
}

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => existsSync(path.join(dir, binary)));
}

// initdb and postgres refuse to run as root; as root they run as the `postgres` user.
const asRoot = process.getuid?.() === 0;

/**
 * Why this machine cannot run private servers, or undefined when it can. Outside CI a missing
 * binary skips the tests that need them (saying which); under CI (`CI` set) it never does, so
 * CI fails instead of silently not testing.
 */
export function privateServersMissing(): string | undefined {
  if (process.env.CI) return undefined;
  const missing: string[] = [];
  if (!onPath('redis-server')) missing.push('redis-server on PATH (apt-get install redis-server)');
  if (!postgresBin()) missing.push('/usr/lib/postgresql/*/bin (apt-get install postgresql)');
  if (asRoot && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    missing.push('runuser, to run PostgreSQL as the postgres user');
  return missing.length > 0 ? `no ${missing.join(' and no ')}` : undefined;
}

export interface PrivateServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server for good and removes its files. */
  close(): Promise<void>;
}

/** A Redis of its own on a free port, without persistence: a restart loses everything, as it may. */
export async function startPrivateRedis(): Promise<PrivateServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = started;
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 15_000);
      started.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}):\n${output}`));
      });
    });
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    // Already gone: exited (exitCode set) or killed by a signal (exitCode null, signalCode set),
    // when 'exit' has already been emitted and would never come again.
    if (running.exitCode !== null || running.signalCode !== null) return;
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop, close: stop };
}

/** A PostgreSQL cluster of its own (initdb, trust auth on loopback) on a free port. */
export async function startPrivatePostgres(): Promise<PrivateServer> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const port = await freePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-private-pg-'));
  const data = path.join(dir, 'data');
  const asOwner = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args])
      : run(path.join(bin, command), args);
  // The socket goes in the private folder; fsync off: nothing here must survive a power cut.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = async () => {
    await asOwner('pg_ctl', [
      '-D',
      data,
      '-o',
      options,
      '-l',
      path.join(dir, 'log'),
      '-w',
      '-t',
      '30',
      'start',
    ]);
  };
  const stop = async () => {
    await asOwner('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => {});
  };
  const close = async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    if (asRoot) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: group } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(group.trim()));
    }
    await chmod(dir, 0o700);
    await asOwner('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await start();
    await run(path.join(bin, 'createdb'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      'sheetgate',
    ]);
  } catch (error) {
    // Nobody gets a handle to close: stop what started and remove the cluster here.
    await close();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/sheetgate`, start, stop, close };
}
