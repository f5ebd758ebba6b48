import { freePorts, portInUse } from './ports.ts';

/*
 * A port is free when `freePorts` picks it, but nothing holds it until the process it was picked
 * for binds it; should another process take it in between, that start fails ("port … is already
 * in use"). These let a harness say so (`PortTakenError`) and start again on other ports
 * (`withFreePorts`), rather than fail the test file.
 */

/** A start that failed because a port given to it was taken before its process bound it. */
export class PortTakenError extends Error {
  readonly ports: number[];
  constructor(ports: number[], detail: string) {
    super(`port ${ports.join(', ')} was taken before it could be bound:\n${detail}`);
    this.name = 'PortTakenError';
    this.ports = ports;
  }
}

/**
 * What a process that could not bind prints: service-runtime's `port N is already in use (set …)`,
 * the launcher's `port N (SETTING) is already in use`, and Node's own `EADDRINUSE: address already
 * in use HOST:N` (a gRPC bind, a server without service-runtime's wording).
 */
const NAMED_PORT = /\bport (\d+)\b[^\n]*? is already in use/g;
const ERRNO_PORT = /EADDRINUSE: address already in use [\da-fA-F:.[\]]*:(\d+)\b/g;

/** The ports a failed start's output says were taken. */
export function takenPortsIn(output: string): number[] {
  const found = [...output.matchAll(NAMED_PORT), ...output.matchAll(ERRNO_PORT)].map((match) =>
    Number(match[1]),
  );
  return [...new Set(found)];
}

/**
 * The ports a process that exited before it was ready could not bind: those its output names, or,
 * when it printed nothing saying so (a process told to log nothing), those of `ports` another
 * process holds now that it is gone.
 */
export async function portsTakenFrom(output: string, ports: number[]): Promise<number[]> {
  const named = takenPortsIn(output);
  if (named.length > 0) return named;
  const held = await Promise.all(ports.map(async (port) => ((await portInUse(port)) ? port : undefined)));
  return held.filter((port) => port !== undefined);
}

/**
 * Calls `start` with `count` ports free right now; when it fails with a `PortTakenError`, picks
 * `count` others and calls it again (up to `attempts` calls). `start` makes everything that
 * depends on the ports from them (URLs, other processes' settings), and stops whatever it started
 * before it throws.
 */
export async function withFreePorts<T>(
  count: number,
  start: (ports: number[]) => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePorts(count));
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= attempts) throw error;
    }
  }
}
