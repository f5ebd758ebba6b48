import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which tool a Google request is made for, so the metrics count Google requests per tool and API
 * method (docs/design.md §11, "Google requests per tool"). The googleapis HTTP adapter sees every
 * attempt but not the tool behind it; the tool call runs inside `runAsTool` and the adapter reads
 * `toolOfThisCall` (AsyncLocalStorage is Node's own way of carrying a value across awaits).
 */
const toolScope = new AsyncLocalStorage<string>();

export function runAsTool<T>(tool: string, run: () => Promise<T>): Promise<T> {
  return toolScope.run(tool, run);
}

/** The tool whose call is running, or `none` outside one. */
export function toolOfThisCall(): string {
  return toolScope.getStore() ?? 'none';
}
