import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from '@sheetgate/test-harness';
import type { CallOutcome, Era, EraClient, WireRequest } from './era-clients.ts';

// The Python MCP SDK (`mcp` from PyPI) as an EraClient: test-e2e/clients/mcp_session.py holds one
// session open and answers one JSON line per command.

const BOOTSTRAP = path.join(repoRoot, 'scripts/bootstrap-python-mcp.sh');
const SESSION_SCRIPT = path.join(repoRoot, 'test-e2e/clients/mcp_session.py');

/**
 * The virtual environment's python, made by scripts/bootstrap-python-mcp.sh when it is missing
 * or out of date (the script locks, so test files asking at once install it once).
 */
export function ensurePythonMcp(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [BOOTSTRAP], { timeout: 600_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`scripts/bootstrap-python-mcp.sh failed: ${error.message}\n${stderr}`));
      else resolve(stdout.trim().split('\n').at(-1)!);
    });
  });
}

/** mcp_session.py run once with exactly `env` (and PATH), stdin closed: its exit code and output. */
export function runSessionScript(
  python: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      python,
      [SESSION_SCRIPT],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

export type PythonCredential = { apiKey: string } | { bearerToken: string };

interface Answer {
  ok: boolean;
  error?: { code?: number; type?: string; message: string };
  [key: string]: unknown;
}

export interface PythonEraClient extends EraClient {
  /** The first line the script printed: the negotiated version, and discover's answer (modern). */
  connected: { protocolVersion: string; discover?: { supportedVersions?: string[] } };
}

export async function pythonClient(
  python: string,
  url: string,
  credential: PythonCredential,
  era: Era,
): Promise<PythonEraClient> {
  const child: ChildProcessWithoutNullStreams = spawn(python, [SESSION_SCRIPT], {
    env: {
      PATH: process.env.PATH ?? '',
      PYTHONUNBUFFERED: '1',
      SHEETGATE_MCP_URL: url,
      SHEETGATE_MCP_ERA: era,
      ...('apiKey' in credential
        ? { SHEETGATE_API_KEY: credential.apiKey }
        : { SHEETGATE_BEARER_TOKEN: credential.bearerToken }),
    },
  });
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let ended: Error | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(line));
  child.on('exit', (code) => {
    ended = new Error(`mcp_session.py exited with ${code}:\n${stderr.join('')}`);
    for (const pending of waiting.splice(0)) pending.reject(ended);
  });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      if (ended) reject(ended);
      else waiting.push({ resolve, reject });
    });

  async function ask(command: Record<string, unknown>): Promise<Answer> {
    const line = nextLine();
    child.stdin.write(`${JSON.stringify(command)}\n`);
    const answer = JSON.parse(await line) as Answer;
    if (!answer.ok) throw new Error(`python client: ${JSON.stringify(answer.error ?? answer)}`);
    return answer;
  }

  const first = JSON.parse(await nextLine()) as { event: string; error?: unknown; requests?: WireRequest[] };
  if (first.event !== 'connected') {
    child.stdin.end();
    const statuses = (first.requests ?? []).map((request) => `${request.method} → ${request.status}`);
    throw new Error(
      `python client could not connect: ${JSON.stringify(first.error)} (${statuses.join(', ')})`,
    );
  }
  const connected = first as unknown as PythonEraClient['connected'];
  return {
    era,
    connected,
    listTools: async () => (await ask({ op: 'list_tools' })).tools as Array<{ name: string }>,
    call: async (name, args, options = {}) => {
      const answer = await ask({
        op: 'call',
        name,
        arguments: args,
        progress: Boolean(options.progress),
        elicitation: options.elicitation ?? null,
      });
      return answer as unknown as CallOutcome;
    },
    requests: async () => (await ask({ op: 'requests' })).requests as WireRequest[],
    close: async () => {
      if (ended) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
    },
  };
}
