import { execFileSync } from 'node:child_process';
import { rssMb, type Stack, startStack } from '@sheetgate/test-harness';
import autocannon from 'autocannon';
import {
  accountEmails,
  type ConnectedPerson,
  connectPeople,
  credentialHeaders,
  MCP_HEADERS,
  othersNamed,
  toolCall,
} from '../support/connected-people.ts';

/**
 * A sustained, mixed, bounded load on the whole stack over loopback — JWT (OAuth) and API-key
 * clients of several people, reads and writes — and what it showed. Used by `pnpm test:load`
 * (load/run.ts, long) and by load/short-run.test.ts (a few seconds, inside `pnpm test`).
 */

export interface LoadOptions {
  /** How long the measured run lasts, after the warm-up. */
  seconds: number;
  /** Emulator accounts, each a person with an API key and an OAuth client (6–10). */
  people: number;
  connections: number;
  /**
   * Unmeasured load first, in rounds, until the MCP service's RSS settles, so the RSS at "start"
   * is the warmed-up process's, not a cold one's; at most this long.
   */
  maxWarmupSeconds: number;
}

export interface LoadFigures {
  seconds: number;
  connections: number;
  people: number;
  requests: number;
  requestsPerSecond: number;
  /** Connection errors and timeouts (no answer); this and the next four include the warm-up. */
  errors: number;
  non2xx: number;
  statuses: Record<string, number>;
  /** 200 answers that were JSON-RPC errors or tool errors. */
  toolErrors: number;
  /** Replies that carried another request's JSON-RPC id. */
  unpaired: number;
  /** Replies that named another person's marker, email or spreadsheet id. */
  crossed: number;
  /** Reads whose reply carried the reader's own marker: proof the leak check sees data. */
  ownDataSeen: number;
  p50: number;
  p99: number;
  /** How long the warm-up ran, and whether the RSS settled in that time. */
  warmupSeconds: number;
  settled: boolean;
  rssColdMb: number;
  rssStartMb: number;
  rssEndMb: number;
  /** RSS every 5 s of the measured run. */
  rssSamplesMb: number[];
  /** A few examples of what went wrong, for the report. */
  examples: string[];
}

/**
 * How much the MCP service's RSS may grow over the measured run. A process that keeps what it
 * served (per-request state, caches without bounds) grows with every request; a steady one moves
 * by its allocator's and V8's slack. V8 first grows its heap to a working size over several
 * thousand requests (here ~240 MB above the cold process over ~20 s at ~300 req/s, in steps), so
 * the run is measured after a warm-up that lasts until the RSS settles:
 * - settled: 64 MB, several times the drift seen after settling (≤ 10 MB over a minute here) and
 *   far below what keeping even a few hundred bytes per request adds over tens of thousands;
 * - not settled (a short run, or a slow machine that did not finish warming up): 256 MB, which
 *   only a gross leak (tens of KB per request, such as keeping each reply) exceeds.
 */
export function rssGrowthLimitMb(settled: boolean): number {
  return settled ? 64 : 256;
}

const WARMUP_ROUND_SECONDS = 3;
/** The RSS after each of the last three warm-up rounds within 8 MB: the heap has its working size. */
const SETTLED_ROUNDS = 3;
const SETTLED_MB = 8;

/** The MCP service this stack's launcher started (its direct child running services/mcp). */
function mcpPid(stack: Stack): number {
  const found = execFileSync('pgrep', ['-P', String(stack.process.pid), '-f', '/services/mcp/'], {
    encoding: 'utf8',
  }).trim();
  const pid = Number(found.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no MCP service under the stack: ${found}`);
  return pid;
}

interface Tally {
  toolErrors: number;
  /** Replies whose JSON-RPC id is not their request's: the pairing the leak check relies on broke. */
  unpaired: number;
  crossed: number;
  ownDataSeen: number;
  examples: string[];
}

/**
 * The mixed requests of one person: both kinds of client, reads and writes of their own data.
 * Every request has its own JSON-RPC id, so each reply can be checked to be its request's.
 */
function requestsOf(person: ConnectedPerson, personIndex: number, everyone: ConnectedPerson[], tally: Tally) {
  const sheet = person.spreadsheetId;
  const read = { spreadsheetId: sheet, range: 'Sheet1!A1:B1' };
  const write = { spreadsheetId: sheet, range: 'Sheet1!C1', values: [[person.email]] };
  const mixes: Array<{ as: 'jwt' | 'key'; body: (id: number) => string; reads: boolean }> = [
    { as: 'jwt', body: (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }), reads: false },
    { as: 'key', body: (id) => toolCall('read_range', read, id), reads: true },
    { as: 'jwt', body: (id) => toolCall('read_range', read, id), reads: true },
    { as: 'key', body: (id) => toolCall('write_range', write, id), reads: false },
    { as: 'jwt', body: (id) => toolCall('list_spreadsheets', {}, id), reads: true },
  ];
  const note = (line: string) => {
    if (tally.examples.length < 5) tally.examples.push(line);
  };
  return mixes.map((mix, mixIndex) => {
    const id = personIndex * 100 + mixIndex + 1;
    const request = mix.body(id);
    return {
      method: 'POST' as const,
      path: '/api/mcp',
      headers: { ...MCP_HEADERS, ...credentialHeaders(person, mix.as) },
      body: request,
      onResponse(status: number, body: string) {
        const named = othersNamed(body, person, everyone);
        if (named.length > 0) {
          tally.crossed++;
          note(`${person.email} was shown ${named.join(', ')}`);
        }
        if (status !== 200) {
          note(`${mix.as} ${request.slice(0, 80)} → ${status} ${body.slice(0, 200)}`);
          return;
        }
        let reply: { id?: unknown; error?: unknown; result?: { isError?: boolean } };
        try {
          reply = JSON.parse(body);
        } catch {
          tally.toolErrors++;
          note(`not JSON: ${body.slice(0, 120)}`);
          return;
        }
        if (reply.id !== id) {
          tally.unpaired++;
          note(`request ${id} got the reply of request ${JSON.stringify(reply.id)}`);
        } else if (reply.error || reply.result?.isError) {
          tally.toolErrors++;
          note(`${mix.as} ${request.slice(0, 80)} → ${body.slice(0, 200)}`);
        } else if (mix.reads && body.includes(person.marker)) {
          tally.ownDataSeen++;
        }
      },
    };
  });
}

function statusCounts(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0]),
  );
}

function mergeCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const merged = { ...a };
  for (const [code, count] of Object.entries(b)) merged[code] = (merged[code] ?? 0) + count;
  return merged;
}

interface Round {
  errors: number;
  non2xx: number;
  statuses: Record<string, number>;
}

function roundOf(result: autocannon.Result): Round {
  return { errors: result.errors + result.timeouts, non2xx: result.non2xx, statuses: statusCounts(result) };
}

function addRounds(a: Round, b: Round): Round {
  return {
    errors: a.errors + b.errors,
    non2xx: a.non2xx + b.non2xx,
    statuses: mergeCounts(a.statuses, b.statuses),
  };
}

/** Starts a stack, connects the people, runs the load, stops the stack; answers the figures. */
export async function runMixedLoad(options: LoadOptions): Promise<LoadFigures> {
  const emails = accountEmails(options.people, 'load');
  const stack = await startStack({
    GOOGLE_EMULATOR_ACCOUNTS: emails.join(','),
    LOG_LEVEL: 'warn',
    // The load is on the services, not on the per-key limiter (tested on its own).
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      apiKey: { points: 10_000_000, durationSeconds: 60 },
      register: { points: 500, durationSeconds: 3600 },
    }),
  });
  try {
    const people = await connectPeople(stack, emails);
    const tally: Tally = { toolErrors: 0, unpaired: 0, crossed: 0, ownDataSeen: 0, examples: [] };
    const requests = people.flatMap((person, index) => requestsOf(person, index, people, tally));
    const load = (seconds: number) =>
      autocannon({ url: stack.baseUrl, connections: options.connections, duration: seconds, requests });
    const pid = mcpPid(stack);
    const rssColdMb = rssMb(pid);

    // Warm up until the RSS settles: V8 grows its heap to a working size over the first several
    // thousand requests (in steps, with pauses between them), which is not a leak.
    let warmup: Round = { errors: 0, non2xx: 0, statuses: {} };
    const warmupRss: number[] = [];
    const settled = () => {
      const last = warmupRss.slice(-SETTLED_ROUNDS);
      return last.length === SETTLED_ROUNDS && Math.max(...last) - Math.min(...last) <= SETTLED_MB;
    };
    while (!settled() && warmupRss.length * WARMUP_ROUND_SECONDS < options.maxWarmupSeconds) {
      warmup = addRounds(warmup, roundOf(await load(WARMUP_ROUND_SECONDS)));
      warmupRss.push(rssMb(pid));
    }
    const rssStartMb = rssMb(pid);
    const seenInWarmup = tally.ownDataSeen;

    const rssSamplesMb: number[] = [];
    const sampler = setInterval(() => rssSamplesMb.push(rssMb(pid)), 5_000);
    const result = await load(options.seconds);
    clearInterval(sampler);
    const rssEndMb = rssMb(pid);
    // The warm-up's answers are judged too: an error or data crossing then is as wrong as later.
    const all = addRounds(warmup, roundOf(result));
    return {
      seconds: options.seconds,
      connections: options.connections,
      people: people.length,
      requests: result.requests.total,
      requestsPerSecond: Math.round(result.requests.average),
      ...all,
      toolErrors: tally.toolErrors,
      unpaired: tally.unpaired,
      crossed: tally.crossed,
      ownDataSeen: tally.ownDataSeen - seenInWarmup,
      p50: result.latency.p50,
      p99: result.latency.p99,
      warmupSeconds: warmupRss.length * WARMUP_ROUND_SECONDS,
      settled: settled(),
      rssColdMb,
      rssStartMb,
      rssEndMb,
      rssSamplesMb,
      examples: tally.examples,
    };
  } finally {
    await stack.stop();
  }
}

/** What is wrong with a run, one line each; empty when it passed. */
export function loadProblems(figures: LoadFigures): string[] {
  const problems: string[] = [];
  if (figures.requests === 0) problems.push('no request was answered');
  if (figures.errors > 0)
    problems.push(`${figures.errors} requests got no answer (connection error or timeout)`);
  if (figures.non2xx > 0)
    problems.push(`${figures.non2xx} answers were not 2xx: ${JSON.stringify(figures.statuses)}`);
  if (figures.toolErrors > 0) problems.push(`${figures.toolErrors} answers were JSON-RPC or tool errors`);
  if (figures.unpaired > 0) problems.push(`${figures.unpaired} replies carried another request's id`);
  if (figures.crossed > 0) problems.push(`${figures.crossed} replies named another person's data`);
  if (figures.ownDataSeen === 0)
    problems.push("no read showed the reader's own marker: the leak check saw no data");
  const growth = figures.rssEndMb - figures.rssStartMb;
  const limit = rssGrowthLimitMb(figures.settled);
  if (growth > limit) problems.push(`MCP RSS grew ${growth} MB over the run (limit ${limit} MB)`);
  return problems;
}

/** The figures as `pnpm test:load` prints them. */
export function formatFigures(figures: LoadFigures): string {
  return [
    `load: ${figures.seconds} s, ${figures.connections} connections, ${figures.people} people, JWT and API-key clients, reads and writes`,
    `  requests ${figures.requests}, ${figures.requestsPerSecond} req/s`,
    `  errors ${figures.errors}, non-2xx ${figures.non2xx}, tool errors ${figures.toolErrors}, statuses ${JSON.stringify(figures.statuses)} (warm-up included)`,
    `  latency p50 ${figures.p50} ms, p99 ${figures.p99} ms`,
    `  mcp RSS cold ${figures.rssColdMb} MB, start ${figures.rssStartMb} MB (after ${figures.warmupSeconds} s of warm-up, ${figures.settled ? 'settled' : 'not settled'}), end ${figures.rssEndMb} MB (growth limit ${rssGrowthLimitMb(figures.settled)} MB); every 5 s: ${figures.rssSamplesMb.join(', ')}`,
    `  replies naming another person's data: ${figures.crossed}; replies with another request's id: ${figures.unpaired}; reads showing the reader's own marker: ${figures.ownDataSeen}`,
    ...figures.examples.map((example) => `  e.g. ${example}`),
  ].join('\n');
}
