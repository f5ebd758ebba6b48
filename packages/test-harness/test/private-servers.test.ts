import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { privateServersMissing, startPrivateRedis } from '../src/private-servers.ts';

const run = promisify(execFile);
const missing = privateServersMissing();
if (missing) console.warn(`private-servers: skipped (outside CI only): ${missing}`);

describe.skipIf(missing !== undefined)('a private Redis', () => {
  it('stop() returns for a server that was killed by a signal, and it starts again', async () => {
    const server = await startPrivateRedis();
    try {
      const port = new URL(server.url).port;
      const info = (await run('redis-cli', ['-p', port, 'INFO', 'server'])).stdout;
      const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
      expect(pid).toBeGreaterThan(0);
      process.kill(pid, 'SIGKILL');
      // Until this process reaps it, a killed child stays in /proc as a zombie; once it is gone,
      // the child's 'exit' event has been emitted (exitCode null, signalCode SIGKILL).
      for (let attempt = 0; attempt < 200 && existsSync(`/proc/${pid}`); attempt++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(existsSync(`/proc/${pid}`)).toBe(false);
      await server.stop();
      await server.start();
      expect((await run('redis-cli', ['-p', port, 'PING'])).stdout.trim()).toBe('PONG');
    } finally {
      await server.close();
    }
  });
});
