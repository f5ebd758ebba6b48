/**
 * A Vitest setup file that `.ci/run` loads for its first pass (real PostgreSQL and Redis): it
 * notes each test file whose run reads `DATABASE_URL` or `REDIS_URL` — itself, through the test
 * harness (`createTestDatabase`, `createTestRedis`, the stacks built on them), or by handing the
 * environment to a child process — one path per line in `$SHEETGATE_SERVER_USE_LOG`. Only those
 * files can behave differently without the servers, so only they run again in the embedded pass.
 *
 * Derived from what a file does, not from a list kept by hand: a new test that starts a stack is
 * found the first time it runs. Vitest's `forks` pool runs each test file in a process of its own,
 * so `process.env` is wrapped once per file and every read is that file's.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

const log = process.env.SHEETGATE_SERVER_USE_LOG;
const SERVER_SETTINGS = new Set(['DATABASE_URL', 'REDIS_URL']);
const WRAPPED = Symbol.for('sheetgate.serverUseRecorded');

if (log && !(WRAPPED in process.env)) {
  const noted = new Set<string>();
  const note = () => {
    const testPath = expect.getState().testPath;
    if (!testPath || noted.has(testPath)) return;
    noted.add(testPath);
    appendFileSync(log, `${path.relative(process.cwd(), testPath)}\n`);
  };
  const environment = process.env;
  process.env = new Proxy(environment, {
    get(target, key) {
      if (typeof key === 'string' && SERVER_SETTINGS.has(key)) note();
      return Reflect.get(target, key);
    },
    has(target, key) {
      if (key === WRAPPED) return true;
      if (typeof key === 'string' && SERVER_SETTINGS.has(key)) note();
      return Reflect.has(target, key);
    },
  });
}
