export { HttpError, jsonErrors, notImplemented } from './http-errors.ts';
export {
  closeHttpServer,
  healthRoutes,
  listen,
  PortInUseError,
  type ReadinessCheck,
  requestLog,
  runService,
  type ServicePlan,
  shutdownOnSignals,
} from './http-service.ts';
export { createLogger, type Logger, type LoggerOptions, redactValue, scrubSecrets } from './logger.ts';
export { loadSettingsOrExit, parseSettings, SettingsError, setting } from './settings.ts';
