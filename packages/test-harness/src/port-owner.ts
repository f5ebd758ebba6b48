import { readdir, readFile, readlink } from 'node:fs/promises';

/*
 * Whose answer a started process's URL gives. When a port picked for a process is taken before it
 * binds it, the taker — most likely another test's service — may answer the same `/readyz` with
 * 200 while the process it was picked for fails to bind: "ready" must then mean that this very
 * process listens there. Linux says which process holds which socket under /proc.
 */

const LISTEN = '0A';

/** The inodes of the TCP sockets listening on `port`, any address, or undefined without /proc. */
async function listeningInodes(port: number): Promise<Set<string> | undefined> {
  const tables = await Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map((table) => readFile(table, 'utf8').catch(() => undefined)),
  );
  if (tables.every((table) => table === undefined)) return undefined;
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const line of tables.join('\n').split('\n')) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    const fields = line.trim().split(/\s+/);
    if (fields[3] === LISTEN && fields[1]?.endsWith(`:${hexPort}`) && fields[9]) inodes.add(fields[9]);
  }
  return inodes;
}

/**
 * Whether process `pid` holds a socket listening on `port`. True where /proc cannot tell (another
 * system, or a /proc that hides the process's descriptors): then the answer alone must do.
 */
export async function listensOn(pid: number, port: number): Promise<boolean> {
  const inodes = await listeningInodes(port);
  if (inodes === undefined) return true;
  if (inodes.size === 0) return false;
  let descriptors: string[];
  try {
    descriptors = await readdir(`/proc/${pid}/fd`);
  } catch (error) {
    // Gone: it holds nothing. Hidden: the answer alone must do.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  for (const descriptor of descriptors) {
    const target = await readlink(`/proc/${pid}/fd/${descriptor}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode && inodes.has(inode)) return true;
  }
  return false;
}
