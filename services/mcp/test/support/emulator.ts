import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot, startProcess, withFreePorts } from '@sheetgate/test-harness';

/**
 * The Google emulator as its own process on `port`, answering once it is up; a `PortTakenError`
 * when the port was taken before it bound it (`withFreePorts` picks another).
 */
export async function startEmulator(
  port: number,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const emulator = await startProcess({
    name: 'google-emulator',
    entry: path.join(repoRoot, 'packages/google-emulator/src/main.ts'),
    env: { PATH: process.env.PATH, GOOGLE_EMULATOR_PORT: String(port), LOG_LEVEL: 'warn', ...env },
    port,
    readyPath: '/healthz',
    ports: [port],
  });
  return { child: emulator.process, url: emulator.url };
}

/** The Google emulator on a port of its own (another one should the first be taken). */
export function startEmulatorOnFreePort(
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  return withFreePorts(1, ([port]) => startEmulator(port!, env));
}
