import { createLogger, loadSettingsOrExit, shutdownOnSignals } from '@sheetgate/service-runtime';
import { DEFAULT_CLIENT, startGoogleEmulator } from './index.ts';
import { emulatorSettingsSchema } from './settings.ts';

const settings = loadSettingsOrExit('google-emulator', emulatorSettingsSchema);
if (Boolean(settings.GOOGLE_CLIENT_ID) !== Boolean(settings.GOOGLE_CLIENT_SECRET)) {
  process.stderr.write(
    'google-emulator: invalid setting GOOGLE_CLIENT_SECRET: GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET go together (set both or neither)\n',
  );
  process.exit(78);
}
const logger = createLogger({ service: 'google-emulator', level: settings.LOG_LEVEL });

try {
  const emulator = await startGoogleEmulator({
    port: settings.GOOGLE_EMULATOR_PORT,
    host: settings.GOOGLE_EMULATOR_HOST,
    ...(settings.GOOGLE_EMULATOR_URL ? { publicUrl: settings.GOOGLE_EMULATOR_URL } : {}),
    ...(settings.GOOGLE_EMULATOR_ACCOUNTS ? { accounts: settings.GOOGLE_EMULATOR_ACCOUNTS } : {}),
    clients: [
      settings.GOOGLE_CLIENT_ID && settings.GOOGLE_CLIENT_SECRET
        ? {
            clientId: settings.GOOGLE_CLIENT_ID,
            clientSecret: settings.GOOGLE_CLIENT_SECRET,
            ...(settings.GOOGLE_EMULATOR_REDIRECT_URIS
              ? { redirectUris: settings.GOOGLE_EMULATOR_REDIRECT_URIS }
              : {}),
          }
        : {
            ...DEFAULT_CLIENT,
            ...(settings.GOOGLE_EMULATOR_REDIRECT_URIS
              ? { redirectUris: settings.GOOGLE_EMULATOR_REDIRECT_URIS }
              : {}),
          },
    ],
    accessTokenTtlSeconds: settings.GOOGLE_EMULATOR_ACCESS_TOKEN_TTL,
    authorizationCodeTtlSeconds: settings.GOOGLE_EMULATOR_AUTHORIZATION_CODE_TTL,
    scopeCheckboxes: settings.GOOGLE_EMULATOR_SCOPE_CHECKBOXES,
    logger,
  });
  logger.info({ url: emulator.url }, `google-emulator listening at ${emulator.url}`);
  shutdownOnSignals({ logger, servers: [emulator] });
} catch (error) {
  logger.fatal({ err: error }, `google-emulator could not start: ${(error as Error).message}`);
  logger.flush();
  setTimeout(() => process.exit(1), 100).unref();
}
