/**
 * `promise`, or a rejection with `late()` once `ms` have passed without it settling. The work
 * itself carries on (a promise cannot be cancelled); only the wait for it ends.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, late: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(late()), Math.max(0, ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
