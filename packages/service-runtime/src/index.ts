export {
  type BrowserCookieOptions,
  clearBrowserCookie,
  readBrowserCookie,
  SESSION_COOKIE,
  sessionCookie,
  setBrowserCookie,
} from './browser-cookies.ts';
export {
  addressLimitKey,
  type ClientAddressOf,
  clientAddressResolver,
  DEFAULT_TRUSTED_PROXIES,
  parseTrustedProxies,
} from './client-address.ts';
export { type CsrfTokens, createCsrfTokens, isSameOriginPost } from './csrf-tokens.ts';
export { withDeadline } from './deadline.ts';
export { CALLER_FAULT_KINDS, type ErrorKind, errorKind, SheetgateError } from './errors.ts';
export {
  HTTP_ANSWERS,
  HttpError,
  type JsonErrorAnswer,
  jsonErrorAnswer,
  jsonErrors,
  kindOfHttpStatus,
} from './http-errors.ts';
export {
  type Route,
  type RouteDeclaration,
  type RouteInput,
  route,
  routeMiddleware,
  singleQueryValue,
} from './http-routes.ts';
export {
  closeHttpServer,
  createServiceServer,
  KEEP_ALIVE_TIMEOUT_MS,
  listen,
  PortInUseError,
} from './http-server.ts';
export {
  healthRoutes,
  type ReadinessCheck,
  requestLog,
  runService,
  type ServicePlan,
  shutdownOnSignals,
} from './http-service.ts';
export { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth.ts';
export { logKoaErrors } from './koa-errors.ts';
export { createLogger, type Logger, type LoggerOptions, redactValue, scrubSecrets } from './logger.ts';
export { createServiceMetrics, type ServiceMetrics, serveMetrics } from './metrics.ts';
export { HTML_PAGE_HEADERS, PAGE_HEADERS, pageContentSecurityPolicy } from './page-headers.ts';
export { readBodyUpTo } from './request-body.ts';
export { DEFAULT_RETURN_TO, safeReturnTo } from './return-to.ts';
export { loadSettingsOrExit, parseSettings, SettingsError, setting } from './settings.ts';
export {
  inSpan,
  markSpanFailed,
  outgoingTraceHeaders,
  remoteContext,
  startTracing,
  type Tracing,
  tracingOn,
} from './tracing.ts';
export { isInteractionUid, isUrlSafeId, URL_SAFE_ID } from './url-safe-id.ts';
export { isUuid } from './uuid.ts';
