const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID's text form (the ids of people, API keys and journal entries). An id that arrives from
 * outside (a form, a gRPC request, a token) is checked with this before any lookup: anything else
 * names nothing, and PostgreSQL would refuse it as a `uuid` with an error rather than no row.
 */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
