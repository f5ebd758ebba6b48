import net from 'node:net';

/*
 * Ports for the servers tests start. Written by hand because `listen(0)` is not enough here:
 * the OS picks such a port from the ephemeral range (Linux: 32768–60999), the same range every
 * outgoing connection takes its local port from, so between the pick and the server's own bind a
 * test's PostgreSQL, Redis or HTTP client could take it ("port … is already in use", seen in CI).
 * So ports come from below that range, where only a listener can hold one, and each Vitest worker
 * gets its own slice of it, so two test files running side by side never pick the same port.
 */
const RANGE_START = 20_000;
const SLICE_SIZE = 1_500;
const SLICES = 8; // 20000–31999: below the ephemeral range
const VITEST_WORKER = Number(process.env.VITEST_POOL_ID ?? 0); // 1…maxWorkers; 0 outside Vitest
const sliceStart = RANGE_START + (VITEST_WORKER % SLICES) * SLICE_SIZE;
// A random start, so that runs one after another (or a bench beside the tests) rarely meet.
let cursor = Math.floor(Math.random() * SLICE_SIZE);

function nextCandidate(): number {
  cursor = (cursor + 1) % SLICE_SIZE;
  return sliceStart + cursor;
}

function listenOn(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(undefined));
    probe.listen(port, '127.0.0.1', () => resolve(probe));
  });
}

/**
 * `count` different ports nobody listens on right now, from this worker's slice. Every probe
 * stays open until all are chosen, then all are released for the caller's servers to take.
 */
export async function freePorts(count: number): Promise<number[]> {
  const probes: net.Server[] = [];
  try {
    for (let tried = 0; probes.length < count; tried++) {
      if (tried >= SLICE_SIZE)
        throw new Error(`no ${count} free ports in ${sliceStart}–${sliceStart + SLICE_SIZE - 1}`);
      const probe = await listenOn(nextCandidate());
      if (probe) probes.push(probe);
    }
    return probes.map((probe) => (probe.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(probes.map((probe) => new Promise((resolve) => probe.close(resolve))));
  }
}

/** Whether something listens on `port` (of 127.0.0.1) right now. */
export async function portInUse(port: number): Promise<boolean> {
  const probe = await listenOn(port);
  if (!probe) return true;
  await new Promise((resolve) => probe.close(resolve));
  return false;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
