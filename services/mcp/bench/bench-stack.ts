/**
 * What the MCP benches measure against: auth, the MCP service and the Google emulator as real
 * processes, placed for a 2-core machine — the MCP service alone on SERVER_CORE; this process,
 * auth, the embedded PostgreSQL (its own process when DATABASE_URL is unset) and the emulator on
 * OTHER_CORE. PostgreSQL and Redis servers named by DATABASE_URL/REDIS_URL are shared machines'
 * servers and are not moved. A person signed in, with a JWT and an API key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowedCores, freePort, pin, prioritize, startBenchDatabase } from '@sheetgate/test-harness';
import { type McpUnderTest, startMcpUnderTest } from '../test/support/stack.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

export const SERVER_CORE = process.env.BENCH_SERVER_CORE ?? '1';
export const OTHER_CORE = process.env.BENCH_OTHER_CORE ?? '0';
/**
 * The nice value of every process the bench starts, wrk included (BENCH_NICE=0 to leave them
 * alone): on a machine doing other work, that work otherwise takes the measured server's or the
 * generator's core in the middle of a round. Lowering it needs root; without, nothing changes.
 */
export const NICE = Number(process.env.BENCH_NICE ?? -10);

export interface BenchStack {
  stack: McpUnderTest;
  mcpPid: number;
  userId: string;
  /** The person's dashboard session, to make and revoke keys as the dashboard does. */
  sessionCookie: string;
  /** Request headers carrying the person's credential. */
  jwt: { authorization: string };
  apiKey: { 'x-api-key': string };
  /** Where each process runs, for the report. */
  placement(): string[];
  /** Starts a baseline server (a file of this folder) on SERVER_CORE; stopped by `stop`. */
  startBaseline(file: string, env: Record<string, string>): Promise<{ url: string; pid: number }>;
  stop(): Promise<void>;
}

export async function startBenchStack(
  options: { mcpEnv?: Record<string, string>; authEnv?: Record<string, string> } = {},
): Promise<BenchStack> {
  const placed: Array<{ name: string; pid: number }> = [];
  const notes: string[] = [];
  const place = (name: string, pid: number, cores: string) => {
    if (!pin(pid, cores)) notes.push(`(taskset unavailable: ${name} not pinned)`);
    if (NICE && !prioritize(pid, NICE))
      notes.push(`(nice ${NICE} not permitted: ${name} competes with other work)`);
    placed.push({ name, pid });
  };
  place('load generator (this process)', process.pid, OTHER_CORE);
  const database = await startBenchDatabase(OTHER_CORE);
  if (database.pid) place('embedded PostgreSQL (PGlite)', database.pid, OTHER_CORE);
  const baselines: ChildProcess[] = [];
  let stack: McpUnderTest | undefined;
  try {
    stack = await startMcpUnderTest(
      // The measured service logs at its default level, as `pnpm start` runs it.
      { LOG_LEVEL: 'info', ...options.mcpEnv },
      {
        LOG_LEVEL: 'warn',
        RATE_LIMIT_OVERRIDES: JSON.stringify({ apiKey: { points: 100_000_000, durationSeconds: 60 } }),
        ...options.authEnv,
      },
      { database },
    );
    place('Google emulator', stack.emulatorProcess.pid!, OTHER_CORE);
    place('auth', stack.auth.process.pid!, OTHER_CORE);
    const mcpPid = stack.mcp.process.pid!;
    place('mcp (measured)', mcpPid, SERVER_CORE);

    const person = await stack.signIn('alice@example.com');
    const token = await stack.sign({ sub: person.userId, exp: Math.floor(Date.now() / 1000) + 3 * 3600 });
    const apiKey = (await stack.createApiKey(person.sessionCookie)).secret;
    const started = stack;
    return {
      stack,
      mcpPid,
      userId: person.userId,
      sessionCookie: person.sessionCookie,
      jwt: { authorization: `Bearer ${token}` },
      apiKey: { 'x-api-key': apiKey },
      placement() {
        const lines = [...notes];
        for (const { name, pid } of placed) {
          let cores = 'exited';
          try {
            cores = allowedCores(pid);
          } catch {
            // the process has ended
          }
          lines.push(`  ${name.padEnd(44)} pid ${String(pid).padStart(7)}  cores ${cores}  nice ${NICE}`);
        }
        const redis = process.env.REDIS_URL
          ? `at ${new URL(process.env.REDIS_URL).host} (external, not pinned)`
          : 'none';
        lines.push(
          `backends: PostgreSQL ${database.kind === 'embedded' ? 'embedded (PGlite, the process above)' : `server at ${new URL(database.url).host} (external, not pinned)`}; Redis ${redis}`,
        );
        return lines;
      },
      async startBaseline(file, env) {
        const port = await freePort();
        const child = spawn(process.execPath, [path.join(here, file)], {
          env: { ...process.env, ...env, PORT: String(port) },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        baselines.push(child);
        await new Promise<void>((resolve, reject) => {
          child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
          child.stdout?.once('data', () => resolve());
        });
        place(`${file.replace('.ts', '')} (baseline)`, child.pid!, SERVER_CORE);
        return { url: `http://127.0.0.1:${port}/api/mcp`, pid: child.pid! };
      },
      async stop() {
        await Promise.all(baselines.map(stopChild));
        await started.stop();
      },
    };
  } catch (error) {
    await Promise.all(baselines.map(stopChild));
    if (stack) await stack.stop();
    else await database.close();
    throw error;
  }
}

/** SIGTERM, and the exit awaited (a profiled baseline writes its profile as it exits). */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
