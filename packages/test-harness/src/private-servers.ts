import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PortTakenError, withFreePorts } from './port-retry.ts';

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

/** How redis-server and PostgreSQL say the port they were to listen on is taken. */
const PORT_TAKEN = /Address already in use/i;

/**
 * A Redis of its own on a free port, without persistence: a restart loses everything, as it may.
 * Should the port be taken before its first start binds it, it starts on another.
 */
export async function startPrivateRedis(): Promise<PrivateServer> {
  let port = 0;
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
      // 'close': its output has been read to the end, so why it exited is in it.
      started.once('close', (code) => {
        clearTimeout(timer);
        reject(
          PORT_TAKEN.test(output)
            ? new PortTakenError([port], output)
            : new Error(`redis-server exited (${code}):\n${output}`),
        );
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
  await withFreePorts(1, async ([picked]) => {
    port = picked!;
    await start();
  });
  return { url: `redis://127.0.0.1:${port}`, start, stop, close: stop };
}

/**
 * A PostgreSQL cluster of its own (initdb, trust auth on loopback) on a free port. Should the port
 * be taken before its first start binds it, it starts on another.
 */
export async function startPrivatePostgres(): Promise<PrivateServer> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  let port = 0;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetgate-private-pg-'));
  const data = path.join(dir, 'data');
  const asOwner = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args])
      : run(path.join(bin, command), args);
  const log = path.join(dir, 'log');
  const start = async () => {
    const logged = (await stat(log).catch(() => undefined))?.size ?? 0;
    // The socket goes in the private folder; fsync off: nothing here must survive a power cut.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
    try {
      await asOwner('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', '-t', '30', 'start']);
    } catch (error) {
      // What this start logged (the log keeps every start's): a taken port is said there.
      const said = (await readFile(log).catch(() => Buffer.alloc(0))).subarray(logged).toString();
      throw PORT_TAKEN.test(said) ? new PortTakenError([port], said) : error;
    }
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
    await withFreePorts(1, async ([picked]) => {
      port = picked!;
      await start();
    });
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
