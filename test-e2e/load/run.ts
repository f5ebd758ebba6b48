/**
 * `pnpm test:load`: the mixed load of mixed-load.ts — LOAD_PEOPLE people (default 8), each with
 * an OAuth (JWT) client and an API-key client, on LOAD_CONNECTIONS connections (default 20) — for
 * LOAD_SECONDS (default 60) after a warm-up that lasts until the MCP service's RSS settles (at
 * most 60 s), then the figures: requests, errors, p50/p99, the MCP service's RSS at start and end.
 * Exit 1 on any failure: a request without an answer, a non-2xx answer, a tool or JSON-RPC error,
 * a reply naming another person's data or carrying another request's id, RSS growth over the
 * limit (mixed-load.ts, `rssGrowthLimitMb`).
 */
import { formatFigures, loadProblems, runMixedLoad } from './mixed-load.ts';

const figures = await runMixedLoad({
  seconds: Number(process.env.LOAD_SECONDS ?? 60),
  people: Number(process.env.LOAD_PEOPLE ?? 8),
  connections: Number(process.env.LOAD_CONNECTIONS ?? 20),
  maxWarmupSeconds: 60,
});
const problems = loadProblems(figures);
process.stdout.write(`${formatFigures(figures)}\n`);
for (const problem of problems) process.stdout.write(`FAIL: ${problem}\n`);
process.exit(problems.length > 0 ? 1 : 0);
