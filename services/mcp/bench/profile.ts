/**
 * `pnpm --filter @sheetgate/mcp bench:profile`: where the MCP service's time goes under load,
 * beside bare Koa answering the very same bytes. Both run with V8's CPU profiler (`--cpu-prof`),
 * each alone on SERVER_CORE in turn while wrk sends `tools/list` with a JWT (PROFILE_ERA=modern
 * for the 2026-07-28 request) for PROFILE_SECONDS; then they are stopped and their profiles read.
 * Printed: the CPU each thread of each process used (the profile sees the main thread only), and
 * the main thread's self time per request by part of the code — the middlewares, the endpoint,
 * the SDK, Koa, Node's HTTP and stream code, the socket writes, GC — and the heaviest functions.
 * PROFILE_KEEP=1 keeps the .cpuprofile files (they open in Chrome DevTools).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type LoadRequest, mainThreadSchedule, threadCpuSeconds } from '@sheetgate/test-harness';
import { NICE, OTHER_CORE, SERVER_CORE, startBenchStack } from './bench-stack.ts';
import { type Era, listTools } from './eras.ts';
import { createLoadGenerator } from './load.ts';
import { benchBodyFile } from './one-request.ts';
import { type Profile, type ProfileSums, sumProfile } from './profile-summary.ts';

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const ERA = (process.env.PROFILE_ERA ?? 'legacy') as Era;
const out = (line = '') => process.stdout.write(`${line}\n`);
const micros = () => Number(process.hrtime.bigint() / 1000n);

interface Run {
  name: string;
  dir: string;
  pid: number;
  window: { fromMicros: number; toMicros: number };
  requests: number;
}

const generator = createLoadGenerator({ cores: OTHER_CORE, connections: 50, nice: NICE });

/** wrk on `request` for SECONDS, with the CPU of each of the server's threads. */
async function profiledRun(name: string, pid: number, dir: string, request: LoadRequest): Promise<Run> {
  await generator.run(request, 2);
  const threadsBefore = threadCpuSeconds(pid);
  const scheduleBefore = mainThreadSchedule(pid);
  const started = performance.now();
  const fromMicros = micros();
  const result = await generator.run(request, SECONDS);
  const toMicros = micros();
  const wall = (performance.now() - started) / 1000;
  const threadsAfter = threadCpuSeconds(pid);
  const scheduleAfter = mainThreadSchedule(pid);
  out(
    `${name}: ${Math.round(result.rps)} req/s under the profiler, p99 ${result.p99Ms.toFixed(2)} ms, errors ${result.non2xx + result.socketErrors}, generator ${Math.round(result.generatorCpu * 100)}% of its core`,
  );
  let total = 0;
  const threads: string[] = [];
  for (const [thread, seconds] of threadsAfter) {
    const used = (seconds - (threadsBefore.get(thread) ?? 0)) / wall;
    total += used;
    if (used >= 0.005) threads.push(`${thread.replace(/ \d+$/, '')} ${(used * 100).toFixed(1)}%`);
  }
  out(`  CPU of its threads (share of one core): ${threads.join(', ')}; all ${(total * 100).toFixed(1)}%`);
  // What the profile calls idle is the main thread not running: asleep in epoll, or runnable and
  // waiting for the core (other processes, or its own GC helper threads, pinned to the same core).
  out(
    `  main thread: running ${(((scheduleAfter.running - scheduleBefore.running) / wall) * 100).toFixed(1)}%, runnable but waiting for the core ${(((scheduleAfter.waiting - scheduleBefore.waiting) / wall) * 100).toFixed(1)}%`,
  );
  return { name, dir, pid, window: { fromMicros, toMicros }, requests: result.requests };
}

function readProfile(run: Run): ProfileSums {
  const file = readdirSync(run.dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`${run.name} wrote no profile in ${run.dir}`);
  const profile = JSON.parse(readFileSync(path.join(run.dir, file), 'utf8')) as Profile;
  // The profile covers the whole life of the process: only the samples of the measured run count.
  return sumProfile(profile, run.window);
}

const mcpDir = mkdtempSync(path.join(tmpdir(), 'sheetgate-profile-mcp-'));
const koaDir = mkdtempSync(path.join(tmpdir(), 'sheetgate-profile-koa-'));
const profiling = (dir: string) => ({ NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` });
const bench = await startBenchStack({ mcpEnv: profiling(mcpDir) });
const runs: Run[] = [];
try {
  const list = listTools(ERA);
  const request = { url: bench.stack.mcpUrl, headers: { ...list.headers, ...bench.jwt }, body: list.body };
  const probe = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
  const body = await probe.text();
  if (probe.status !== 200) throw new Error(`tools/list (${ERA}) is not served: HTTP ${probe.status}`);
  const bare = await bench.startBaseline('bare-koa.ts', {
    BENCH_BODY_FILE: benchBodyFile(body),
    ...profiling(koaDir),
  });
  out(
    `tools/list with a JWT (${ERA} era, ${Buffer.byteLength(body)} bytes), ${generator.description}, ${SECONDS} s each, servers on core ${SERVER_CORE}`,
  );
  runs.push(await profiledRun('bare Koa, same bytes', bare.pid, koaDir, { ...request, url: bare.url }));
  runs.push(await profiledRun('MCP service, JWT', bench.mcpPid, mcpDir, request));
} finally {
  // SIGTERM: each process exits, and exiting writes its profile.
  await bench.stop();
}
const [koa, mcp] = runs.map(readProfile) as [ProfileSums, ProfileSums];
const [koaRun, mcpRun] = runs as [Run, Run];
const perRequest = (sums: ProfileSums, run: Run, part: string) => (sums.byPart.get(part) ?? 0) / run.requests;
const busy = (sums: ProfileSums) => sums.total - (sums.byPart.get('idle (waiting in the event loop)') ?? 0);
out();
out('main thread, self time per request (µs), by part of the code:');
out(`  ${'bare Koa'.padStart(9)} ${'MCP'.padStart(9)}   part`);
const parts = [...new Set([...mcp.byPart.keys(), ...koa.byPart.keys()])].sort(
  (a, b) => perRequest(mcp, mcpRun, b) - perRequest(mcp, mcpRun, a),
);
for (const part of parts) {
  const [k, m] = [perRequest(koa, koaRun, part), perRequest(mcp, mcpRun, part)];
  if (Math.max(k, m) < 0.3) continue;
  out(`  ${k.toFixed(1).padStart(9)} ${m.toFixed(1).padStart(9)}   ${part}`);
}
out(
  `  ${(busy(koa) / koaRun.requests).toFixed(1).padStart(9)} ${(busy(mcp) / mcpRun.requests).toFixed(1).padStart(9)}   busy (all but idle)`,
);
for (const [name, sums, run] of [
  ['MCP service', mcp, mcpRun],
  ['bare Koa', koa, koaRun],
] as const) {
  out(`${name}: heaviest functions (self time, µs per request, share of the samples):`);
  for (const [fn, time] of [...sums.byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25))
    out(
      `  ${(time / run.requests).toFixed(1).padStart(6)} ${`${((time / sums.total) * 100).toFixed(1)}%`.padStart(6)}  ${fn}`,
    );
}
if (process.env.PROFILE_KEEP === '1') out(`profiles kept in ${koaDir} and ${mcpDir}`);
else for (const dir of [mcpDir, koaDir]) rmSync(dir, { recursive: true, force: true });
