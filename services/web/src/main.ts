import { createAccountServiceClient, createChangeUndoClient } from '@sheetgate/proto';
import {
  createLogger,
  createServiceMetrics,
  loadSettingsOrExit,
  runService,
} from '@sheetgate/service-runtime';
import { createWebApp } from './app.ts';
import { webSettingsSchema } from './settings.ts';

/**
 * The route templates of the metrics' `route` label: every page and form, the assets, and the
 * JSON 404 of unknown discovery documents. Anything else counts as `unmatched`.
 */
const WEB_HTTP_ROUTES = [
  '/',
  '/login',
  '/authorize',
  '/dashboard',
  '/dashboard/*',
  '/approve/*',
  '/assets/*',
  '/.well-known/*',
];

/** Shorter than /readyz's own 2 s limit, so a slow auth shows as "failing", not as a hung probe. */
const READINESS_DEADLINE_MS = 1_500;

const settings = loadSettingsOrExit('web', webSettingsSchema);

/** Google's Picker frames docs.google.com; a stand-in (the emulator's) frames its own origin. */
function pickerSettings(values: typeof settings) {
  const scriptOrigin = new URL(values.GOOGLE_PICKER_SCRIPT_URL).origin;
  const frameOrigin =
    values.GOOGLE_PICKER_FRAME_ORIGIN ??
    (scriptOrigin === 'https://apis.google.com' ? 'https://docs.google.com' : scriptOrigin);
  return {
    apiKey: values.GOOGLE_PICKER_API_KEY,
    appId: values.GOOGLE_PICKER_APP_ID,
    scriptUrl: values.GOOGLE_PICKER_SCRIPT_URL,
    frameOrigin: new URL(frameOrigin).origin,
  };
}
const logger = createLogger({ service: 'web', level: settings.LOG_LEVEL });
const metrics = createServiceMetrics('web', { routes: WEB_HTTP_ROUTES });

await runService('web', logger, async () => {
  const accounts = createAccountServiceClient({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
  });
  // The Activity page's Undo. Not a readiness check: every other page works without mcp.
  const changeUndo = createChangeUndoClient({
    address: settings.MCP_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
  });
  return {
    handler: createWebApp({
      logger,
      baseUrl: settings.BASE_URL,
      accounts,
      changeUndo,
      serviceToken: settings.INTERNAL_SERVICE_TOKEN,
      picker: pickerSettings(settings),
      ceiling: settings,
      readiness: [
        {
          // Every page needs AccountService. GetSession without a cookie is answered without a
          // database query, and it fails on a wrong INTERNAL_SERVICE_TOKEN too (UNAUTHENTICATED).
          name: 'auth',
          check: async () =>
            void (await accounts.getSession({ sessionCookie: '' }, { deadlineMs: READINESS_DEADLINE_MS })),
        },
      ],
    }).callback(),
    host: settings.WEB_HOST,
    port: settings.WEB_PORT,
    portSetting: 'WEB_PORT',
    metrics: { collector: metrics, port: settings.WEB_METRICS_PORT, portSetting: 'WEB_METRICS_PORT' },
    resources: [async () => accounts.close(), async () => changeUndo.close()],
  };
});
