export {
  type BrowserCookieOptions,
  clearBrowserCookie,
  readBrowserCookie,
  SESSION_COOKIE,
  sessionCookie,
  setBrowserCookie,
} from './browser-cookies.ts';
export { withDeadline } from './deadline.ts';
export { CALLER_FAULT_KINDS, type ErrorKind, errorKind, SheetgateError } from './errors.ts';
export { HttpError, jsonErrors } from './http-errors.ts';
export { closeHttpServer, listen, PortInUseError } from './http-server.ts';
export {
  healthRoutes,
  type ReadinessCheck,
  requestLog,
  runService,
  type ServicePlan,
  shutdownOnSignals,
} from './http-service.ts';
export { createLogger, type Logger, type LoggerOptions, redactValue, scrubSecrets } from './logger.ts';
export { createServiceMetrics, type ServiceMetrics, serveMetrics } from './metrics.ts';
export { readBodyUpTo } from './request-body.ts';
export { loadSettingsOrExit, parseSettings, SettingsError, setting } from './settings.ts';
