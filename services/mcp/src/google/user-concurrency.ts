import { ToolError } from '../errors/tool-error.ts';

export interface UserConcurrencyOptions {
  /** Google calls one user may have running at once on this replica. */
  limit: number;
  /** Calls one user may have waiting for a slot; the next is refused at once. */
  maxWaiting?: number;
  /** How long a call waits for a slot before it is refused. */
  maxWaitMs?: number;
}

interface UserSlots {
  running: number;
  waiting: Array<{ grant: () => void }>;
}

/**
 * A cap on concurrent Google calls per user (per replica), so one user's burst cannot spend the
 * project's Google quota for everyone. Waiters queue in order, but the queue is bounded in length
 * and in time: a flood gets a clear "too many calls" instead of piling up requests and memory.
 * A waiter whose call is cancelled leaves the queue. Nothing is kept for idle users.
 */
export function createUserConcurrency(options: UserConcurrencyOptions) {
  const maxWaiting = options.maxWaiting ?? 16;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const users = new Map<string, UserSlots>();

  function release(userId: string, slots: UserSlots) {
    const next = slots.waiting.shift();
    if (next) next.grant();
    else if (--slots.running === 0) users.delete(userId);
  }

  function acquire(userId: string, signal: AbortSignal): Promise<UserSlots> {
    let slots = users.get(userId);
    if (!slots) {
      slots = { running: 0, waiting: [] };
      users.set(userId, slots);
    }
    if (slots.running < options.limit) {
      slots.running++;
      return Promise.resolve(slots);
    }
    if (slots.waiting.length >= maxWaiting) return Promise.reject(tooManyCalls(options.limit));
    const held = slots;
    return new Promise((resolve, reject) => {
      const leave = (error: ToolError) => {
        const index = held.waiting.indexOf(waiter);
        if (index !== -1) held.waiting.splice(index, 1);
        clearTimeout(timer);
        reject(error);
      };
      // A granted slot passes straight from the call that released it (`running` is unchanged).
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(held);
        },
      };
      const onAbort = () => leave(new ToolError('the request was cancelled'));
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        leave(tooManyCalls(options.limit));
      }, maxWaitMs);
      signal.addEventListener('abort', onAbort, { once: true });
      held.waiting.push(waiter);
    });
  }

  return async function withUserSlot<T>(
    userId: string,
    signal: AbortSignal,
    work: () => Promise<T>,
  ): Promise<T> {
    const slots = await acquire(userId, signal);
    try {
      return await work();
    } finally {
      release(userId, slots);
    }
  };
}

function tooManyCalls(limit: number): ToolError {
  return new ToolError(
    `Too many Google calls at once for this account (${limit} run at a time and others wait briefly). Wait for the running calls to finish, then try again.`,
  );
}
