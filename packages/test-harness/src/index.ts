export { generateLocalSecrets } from '@sheetgate/local-stack';
export {
  findWrk,
  type LoadRequest,
  type LoadResult,
  luaLongString,
  runWrk,
  wrkScript,
} from './bench-load.ts';
export {
  allowedCores,
  busyWhile,
  coreSeconds,
  coresOf,
  cpuSeconds,
  mainThreadSchedule,
  pin,
  prioritize,
  rssMb,
  startBenchDatabase,
  threadCpuSeconds,
} from './bench-placement.ts';
export {
  type BetterAuthDatabase,
  type BetterAuthGoogleAccount,
  createBetterAuthDatabase,
} from './better-auth-database.ts';
export { type Browser, type BrowserStep, createBrowser } from './browser.ts';
export { type ChromiumLauncher, chromiumMissing, launchChromium } from './chromium.ts';
export { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from './databases.ts';
export { dockerEngineAvailable } from './docker.ts';
export { type FreezableRelay, type RelayTarget, startFreezableRelay } from './freezable-relay.ts';
export { readJson } from './http.ts';
export { PortTakenError, withFreePorts } from './port-retry.ts';
export { freePort } from './ports.ts';
export {
  type PrivateServer,
  privateServersMissing,
  startPrivatePostgres,
  startPrivateRedis,
} from './private-servers.ts';
export {
  type ProcessPlan,
  type RunningService,
  repoRoot,
  startProcess,
  startServiceProcess,
} from './processes.ts';
export { type Stack, stackPorts, startStack, TEST_GOOGLE_QUOTAS } from './stack.ts';
