export {
  createSessionStore,
  type NewSession,
  SESSION_TTL_SECONDS,
  type SessionStore,
  type StoredSession,
} from './session-store.ts';
