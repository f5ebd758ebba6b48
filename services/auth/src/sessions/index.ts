export {
  clearSessionCookie,
  readSessionCookie,
  SESSION_COOKIE,
  setSessionCookie,
} from './session-cookie.ts';
export {
  createSessionStore,
  type NewSession,
  SESSION_TTL_SECONDS,
  type SessionStore,
  type StoredSession,
} from './session-store.ts';
