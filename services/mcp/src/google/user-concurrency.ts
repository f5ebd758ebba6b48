/**
 * A cap on concurrent Google calls per user (per replica), so one user's burst cannot spend the
 * project's Google quota for everyone. Waiters queue in order; nothing is kept for idle users.
 */
export function createUserConcurrency(limit: number) {
  const active = new Map<string, { running: number; waiting: Array<() => void> }>();
  return async function withUserSlot<T>(userId: string, work: () => Promise<T>): Promise<T> {
    let entry = active.get(userId);
    if (!entry) {
      entry = { running: 0, waiting: [] };
      active.set(userId, entry);
    }
    if (entry.running >= limit) {
      const slotFree = new Promise<void>((resolve) => entry?.waiting.push(resolve));
      await slotFree;
    }
    entry.running++;
    try {
      return await work();
    } finally {
      entry.running--;
      const next = entry.waiting.shift();
      if (next) next();
      else if (entry.running === 0) active.delete(userId);
    }
  };
}
