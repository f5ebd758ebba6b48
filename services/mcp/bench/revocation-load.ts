/**
 * The load of the revocation bench (bench/revocations.ts), in a worker thread: a few requests in
 * flight on each MCP replica, keep-alive, one after another, until told when the revoke call
 * returned — then until each loop has had a few requests that started after it answered. Kept
 * off the thread that times the revoke call, whose event loop would otherwise be busy with the
 * load's answers when the revoke's arrives (the dashboard's revoke is answered to the web
 * service, which is not serving this load).
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export interface LoadSetup {
  urls: string[];
  inFlightPerReplica: number;
}
/** From the timing thread: start loading with this key, or when the revoke call returned. */
export type LoadCommand =
  | { start: { headers: Record<string, string>; body: string } }
  | { returnedAt: number }
  | { close: true };
/** To the timing thread, once per round: requests that started after the return, and those served. */
export interface LoadReport {
  checkedAfter: number;
  acceptedAfter: number;
}

/** Comparable across threads (each thread's `performance.now()` has its own origin). */
export const wallClock = () => performance.timeOrigin + performance.now();
/** Requests each loop sees start after the return before it stops. */
const CHECKS_PER_LOOP = 3;
const WATCHDOG_MS = 10_000;

if (parentPort) {
  const port = parentPort;
  const { urls, inFlightPerReplica } = workerData as LoadSetup;
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlightPerReplica * urls.length });
  let returnedAt = Number.POSITIVE_INFINITY;
  /** Answers of this round that came before the return was known: judged once it is. */
  let unjudged: Array<{ startedAt: number; status: number; loop: { after: number } }> = [];
  let report: LoadReport = { checkedAfter: 0, acceptedAfter: 0 };
  const judge = (startedAt: number, status: number, loop: { after: number }) => {
    if (startedAt <= returnedAt) return;
    loop.after++;
    report.checkedAfter++;
    if (status === 200) report.acceptedAfter++;
  };
  port.on('message', (command: LoadCommand) => {
    if ('close' in command) {
      agent.destroy();
      port.close();
    } else if ('returnedAt' in command) {
      returnedAt = command.returnedAt;
      for (const answer of unjudged) judge(answer.startedAt, answer.status, answer.loop);
      unjudged = [];
    } else void round(command.start.headers, command.start.body);
  });

  async function round(headers: Record<string, string>, body: string): Promise<void> {
    returnedAt = Number.POSITIVE_INFINITY;
    unjudged = [];
    report = { checkedAfter: 0, acceptedAfter: 0 };
    let stop = false;
    const watchdog = setTimeout(() => {
      stop = true;
    }, WATCHDOG_MS);
    await Promise.all(
      urls.flatMap((url) =>
        Array.from({ length: inFlightPerReplica }, async () => {
          const loop = { after: 0 };
          while (!stop && loop.after < CHECKS_PER_LOOP) {
            const startedAt = wallClock();
            const status = await post(agent, url, headers, body);
            if (returnedAt === Number.POSITIVE_INFINITY) unjudged.push({ startedAt, status, loop });
            else judge(startedAt, status, loop);
          }
        }),
      ),
    );
    clearTimeout(watchdog);
    port.postMessage(report);
  }
}

export function post(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = http.request(url, { method: 'POST', agent, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', () => resolve(0));
    outgoing.end(body);
  });
}
