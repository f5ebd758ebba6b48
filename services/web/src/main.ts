import { createAccountServiceClient } from '@sheetgate/proto';
import { createLogger, loadSettingsOrExit, runService } from '@sheetgate/service-runtime';
import { createWebApp } from './app.ts';
import { webSettingsSchema } from './settings.ts';

const settings = loadSettingsOrExit('web', webSettingsSchema);
const logger = createLogger({ service: 'web', level: settings.LOG_LEVEL });

await runService('web', logger, async () => {
  const accounts = createAccountServiceClient({
    address: settings.AUTH_GRPC_ADDRESS,
    serviceToken: settings.INTERNAL_SERVICE_TOKEN,
  });
  return {
    handler: createWebApp({
      logger,
      baseUrl: settings.BASE_URL,
      accounts,
      serviceToken: settings.INTERNAL_SERVICE_TOKEN,
    }).callback(),
    host: settings.WEB_HOST,
    port: settings.WEB_PORT,
    portSetting: 'WEB_PORT',
    resources: [async () => accounts.close()],
  };
});
