import type { Queryable } from './pool.ts';

/** PostgreSQL's duplicate_prepared_statement. */
const DUPLICATE_PREPARED_STATEMENT = '42P05';

/**
 * The pool, with named prepared statements (`pool.query({ name, text, values })`, parsed once per
 * connection) used only where they are safe. A name belongs to a server session, and the embedded
 * PGlite (docs/design.md §6) serves every `pg` connection from one session, so a second
 * connection's Parse of the same name fails with 42P05: on the first such failure the query is run
 * again unnamed, and this pool stops naming statements. Against a real PostgreSQL nothing changes.
 */
export function namedStatementsWhereSafe<Pool extends Queryable>(pool: Pool): Pool {
  let sharedSession = false;
  const query = (config: unknown, ...rest: unknown[]): unknown => {
    const named = typeof config === 'object' && config !== null && 'name' in config;
    if (!named) return (pool.query as (...args: unknown[]) => unknown)(config, ...rest);
    const { name: _name, ...unnamed } = config as { name: string };
    if (sharedSession) return (pool.query as (...args: unknown[]) => unknown)(unnamed, ...rest);
    return (pool.query as (...args: unknown[]) => Promise<unknown>)(config, ...rest).catch(
      (error: unknown) => {
        if ((error as { code?: string }).code !== DUPLICATE_PREPARED_STATEMENT) throw error;
        sharedSession = true;
        return (pool.query as (...args: unknown[]) => unknown)(unnamed, ...rest);
      },
    );
  };
  return new Proxy(pool, {
    get(target, property, receiver) {
      return property === 'query' ? query : Reflect.get(target, property, receiver);
    },
  });
}
