import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '@sheetgate/test-harness';

/** The Google emulator as its own process on `port`, answering once it is up. */
export async function startEmulator(
  port: number,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'packages/google-emulator/src/main.ts')], {
    env: { PATH: process.env.PATH, GOOGLE_EMULATOR_PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the Google emulator exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) })).ok) return { child, url };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the Google emulator did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
