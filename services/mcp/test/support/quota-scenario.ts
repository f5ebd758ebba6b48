import { setTimeout as sleep } from 'node:timers/promises';
import { type McpUnderTest, postReadRange, startMcpUnderTest } from './stack.ts';

/**
 * Issue 22's proof under load, shared by the test (which checks what must hold) and `pnpm bench`
 * (which prints the latencies): the emulator enforces Sheets read quotas, Sheetgate is told the
 * same, and for `seconds` one person's agent loops on read_range with 20 calls at once while
 * another person reads once every 2 s.
 */
export interface ScenarioQuotas {
  readsPerMinutePerProject: number;
  readsPerMinutePerUser: number;
}

/** The issue's figures: 120 reads a minute for the project, 60 per person. */
export const ISSUE_QUOTAS: ScenarioQuotas = { readsPerMinutePerProject: 120, readsPerMinutePerUser: 60 };
/**
 * A person may spend the whole project's minute: nothing but the scheduler's fairness (the
 * newcomers' reserve, the waiting reader going first) keeps the flood from starving the reader.
 */
export const FAIRNESS_ONLY_QUOTAS: ScenarioQuotas = {
  readsPerMinutePerProject: 120,
  readsPerMinutePerUser: 120,
};

/** How one tool call ended. */
export type CallOutcome =
  | { kind: 'ok'; ms: number }
  | { kind: 'try_again'; ms: number; seconds: number }
  | { kind: 'other'; ms: number; what: string };

export interface ScenarioResult {
  flood: CallOutcome[];
  single: CallOutcome[];
  /** What the emulator answered Sheets reads with, by HTTP status. */
  googleResponses: Record<string, number>;
}

const FLOOD_CONCURRENCY = 20;
const SINGLE_INTERVAL_MS = 2_000;
/** A flooding agent told to try again later comes back this soon anyway (a busy agent). */
const FLOOD_PAUSE_AFTER_REFUSAL_MS = 250;

export async function startScenarioStack(quotas: ScenarioQuotas): Promise<McpUnderTest> {
  const stack = await startMcpUnderTest(
    {},
    {
      GOOGLE_QUOTAS: JSON.stringify({
        sheetsReadsPerMinutePerProject: quotas.readsPerMinutePerProject,
        sheetsReadsPerMinutePerUser: quotas.readsPerMinutePerUser,
      }),
    },
  );
  const set = await fetch(`${stack.emulatorUrl}/__emulator/quotas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(quotas),
  });
  if (set.status !== 200) throw new Error(`the emulator refused its quotas: ${set.status}`);
  return stack;
}

async function callOnce(stack: McpUnderTest, token: string, spreadsheetId: string): Promise<CallOutcome> {
  const started = performance.now();
  const response = await postReadRange(stack.mcpUrl, token, { spreadsheetId, range: 'Sheet1!A1' });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200)
    return { kind: 'other', ms, what: `HTTP ${response.status}: ${body.slice(0, 200)}` };
  const reply = JSON.parse(body) as { result?: { isError?: boolean; content?: Array<{ text?: string }> } };
  if (!reply.result) return { kind: 'other', ms, what: body.slice(0, 200) };
  if (!reply.result.isError) return { kind: 'ok', ms };
  const text = reply.result.content?.[0]?.text ?? '';
  const retry = /Try again in (\d+) s\.$/.exec(text);
  return retry ? { kind: 'try_again', ms, seconds: Number(retry[1]) } : { kind: 'other', ms, what: text };
}

export async function runQuotaScenario(stack: McpUnderTest, seconds: number): Promise<ScenarioResult> {
  const people = await Promise.all(
    ['alice@example.com', 'bob@example.com'].map(async (email) => {
      const { userId } = await stack.signIn(email);
      const [spreadsheetId] = await stack.seed(email, [{ name: 'Sheet', values: [['hello']] }]);
      return {
        token: await stack.sign({ sub: userId, exp: Math.floor(Date.now() / 1000) + 3_600 }),
        spreadsheetId: spreadsheetId!,
      };
    }),
  );
  // alice floods, bob reads now and then.
  const [flooder, single] = people as [(typeof people)[0], (typeof people)[0]];
  await fetch(`${stack.emulatorUrl}/__emulator/stats`, { method: 'DELETE' });
  const ends = performance.now() + seconds * 1000;
  const flood: CallOutcome[] = [];
  const singles: CallOutcome[] = [];
  const floodWorker = async () => {
    while (performance.now() < ends) {
      const outcome = await callOnce(stack, flooder.token, flooder.spreadsheetId);
      flood.push(outcome);
      if (outcome.kind !== 'ok') await sleep(FLOOD_PAUSE_AFTER_REFUSAL_MS);
    }
  };
  const singleReader = async () => {
    for (let next = performance.now(); next < ends; next += SINGLE_INTERVAL_MS) {
      await sleep(Math.max(0, next - performance.now()));
      singles.push(await callOnce(stack, single.token, single.spreadsheetId));
    }
  };
  await Promise.all([...Array.from({ length: FLOOD_CONCURRENCY }, floodWorker), singleReader()]);
  const stats = (await (await fetch(`${stack.emulatorUrl}/__emulator/stats`)).json()) as {
    methods: Record<string, { responses: Record<string, number> }>;
  };
  return {
    flood,
    single: singles,
    googleResponses: stats.methods['sheets.spreadsheets.values.get']?.responses ?? {},
  };
}
