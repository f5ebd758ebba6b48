import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose Google request this is: the tool whose call makes it, and the person it is made for. The
 * googleapis HTTP adapter sees every attempt but neither of them; the tool call runs inside
 * `runAsTool` and each Google call inside `runForPerson`, and the adapter reads `googleRequestOwner`
 * — to count requests per tool (docs/design.md §11, "Google requests per tool") and to take the
 * person's turn at Google's quota (§11.6). AsyncLocalStorage is Node's own way of carrying a value
 * across awaits.
 */
export interface GoogleRequestOwner {
  tool: string;
  userId?: string;
  /** Tells the client why the call waits (a progress notification, when it asked for them). */
  note?: (message: string) => void;
}

const ownerScope = new AsyncLocalStorage<GoogleRequestOwner>();

export function runAsTool<T>(
  tool: string,
  note: (message: string) => void,
  run: () => Promise<T>,
): Promise<T> {
  return ownerScope.run({ tool, note }, run);
}

/** Runs one Google call of `userId`'s (within the tool call, if any). */
export function runForPerson<T>(userId: string, run: () => Promise<T>): Promise<T> {
  return ownerScope.run({ ...ownerScope.getStore(), tool: toolOfThisCall(), userId }, run);
}

/** The tool whose call is running, or `none` outside one. */
export function toolOfThisCall(): string {
  return ownerScope.getStore()?.tool ?? 'none';
}

/** The person the running Google call is made for (if it runs inside `runForPerson`), and the call's `note`. */
export function googleRequestOwner(): GoogleRequestOwner | undefined {
  return ownerScope.getStore();
}
