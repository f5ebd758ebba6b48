import { ToolError } from '../errors/tool-error.ts';

/** Resolves after `ms`, or rejects with "the request was cancelled" as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ToolError('the request was cancelled'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ToolError('the request was cancelled'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
