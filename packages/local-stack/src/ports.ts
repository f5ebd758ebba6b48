import net from 'node:net';

/** Names of the settings whose ports are already taken on `host`. */
export async function findTakenPorts(ports: Array<{ setting: string; port: number }>, host: string) {
  const free = await Promise.all(ports.map((entry) => isFree(entry.port, host)));
  return ports.filter((_entry, index) => !free[index]);
}

function isFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
