import { drive } from 'googleapis/build/src/apis/drive/index.js';
import { sheets } from 'googleapis/build/src/apis/sheets/index.js';
import { createGoogleCaller } from '../../src/google/call-google.ts';
import type { GoogleAccessTokens } from '../../src/google/google-access.ts';
import type { ToolContext, ToolDefinition } from '../../src/tools/kit/tool-definition.ts';
import type { ToolDeps } from '../../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../../src/tools/registry.ts';
import { startEmulatorOnFreePort } from './emulator.ts';

/** One `context.progress` call a tool made. */
export interface ProgressReport {
  progress: number;
  total: number | undefined;
  message: string | undefined;
}

export interface MethodStats {
  attempts: number;
}

export interface ToolsUnderTest {
  emulatorUrl: string;
  email: string;
  /** A tool of the registry, built as service.ts builds them (the same clients and call wrapper). */
  tool(name: string): ToolDefinition;
  /** The clients, call wrapper and tokens the tools were built with, for what service.ts builds beside them. */
  deps: Pick<ToolDeps, 'sheets' | 'drive' | 'callGoogle'> & { tokens: GoogleAccessTokens };
  /** A context for one call, acting for the person; its progress reports land in `reports`. */
  context(options?: { signal?: AbortSignal; onProgress?: (report: ProgressReport) => void }): ToolContext & {
    reports: ProgressReport[];
  };
  /** `POST /__emulator/seed` for the person; the new files' ids. */
  seed(files: Array<Record<string, unknown>>): Promise<string[]>;
  /** What reached "Google" since the last `forgetCalls`. */
  calls(): Promise<{ all: number; methods: Record<string, MethodStats | undefined> }>;
  forgetCalls(): Promise<void>;
  fault(body: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

const SCOPES = ['https://www.googleapis.com/auth/spreadsheets', 'https://www.googleapis.com/auth/drive'];

/**
 * The tools run in this process against a Google emulator process, with a real access token the
 * emulator issued: what a tool asks of Google, how it reports progress and what a cancelled
 * signal stops can be seen without the MCP protocol in between. `fetch`, when given, carries the
 * tools' Google requests (to see what each asked and how much came back).
 */
export async function startToolsUnderTest(
  email = 'alice@example.com',
  options: { fetch?: typeof fetch } = {},
): Promise<ToolsUnderTest> {
  const emulator = await startEmulatorOnFreePort({ GOOGLE_EMULATOR_ACCOUNTS: email });
  const url = emulator.url;
  try {
    const admin = async (path: string, body: unknown) => {
      const response = await fetch(`${url}/__emulator/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`the emulator refused ${path}: ${await response.text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    // The emulator's default client (no GOOGLE_CLIENT_ID given) is emulator-client / emulator-secret.
    const grant = await admin('grants', { email, clientId: 'emulator-client', scopes: SCOPES });
    const exchanged = await fetch(`${url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(grant.refresh_token),
        client_id: 'emulator-client',
        client_secret: 'emulator-secret',
      }),
    });
    const { access_token: accessToken } = (await exchanged.json()) as { access_token: string };

    const rootUrl = `${url}/`;
    const tokens: GoogleAccessTokens = {
      get: async () => ({
        ok: true,
        accessToken,
        expiresAt: Date.now() + 3_600_000,
        scopes: SCOPES,
        email: 'alice@example.com',
        hostedDomain: 'example.com',
      }),
    };
    const callGoogle = createGoogleCaller({ tokens, rootUrl, dashboardUrl: 'http://127.0.0.1/dashboard' });
    const google = { fetchImplementation: options.fetch ?? fetch, rootUrl };
    const deps = {
      sheets: sheets({ version: 'v4', ...google }),
      drive: drive({ version: 'v3', ...google }),
      callGoogle,
    };
    const tools = new Map(sheetgateTools(deps).map((tool) => [tool.name, tool]));

    return {
      emulatorUrl: url,
      email,
      deps: { ...deps, tokens },
      tool(name) {
        const tool = tools.get(name);
        if (!tool) throw new Error(`no tool ${name}`);
        return tool;
      },
      context(options = {}) {
        const reports: ProgressReport[] = [];
        return {
          auth: {
            userId: 'user-1',
            scopes: new Set(['sheets:read', 'sheets:write']),
            credential: 'access_token',
          },
          signal: options.signal ?? new AbortController().signal,
          progress(progress, total, message) {
            const report = { progress, total, message };
            reports.push(report);
            options.onProgress?.(report);
          },
          reports,
        };
      },
      async seed(files) {
        const created = (await admin('seed', { email, files })) as { files: Array<{ id: string }> };
        return created.files.map((file) => file.id);
      },
      async calls() {
        const stats = (await (await fetch(`${url}/__emulator/stats`)).json()) as {
          methods: Record<string, MethodStats>;
          allMethods: MethodStats;
        };
        return { all: stats.allMethods.attempts, methods: stats.methods };
      },
      async forgetCalls() {
        await fetch(`${url}/__emulator/stats`, { method: 'DELETE' });
      },
      async fault(body) {
        await admin('faults', body);
      },
      async stop() {
        emulator.child.kill();
      },
    };
  } catch (error) {
    emulator.child.kill();
    throw error;
  }
}
