export { generateLocalSecrets } from '@sheetgate/local-stack';
export { type Browser, type BrowserStep, createBrowser } from './browser.ts';
export { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from './databases.ts';
export { dockerEngineAvailable } from './docker.ts';
export { readJson } from './http.ts';
export { freePort, type RunningService, repoRoot, startServiceProcess } from './processes.ts';
export { type Stack, stackPorts, startStack } from './stack.ts';
