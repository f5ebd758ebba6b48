import { createLogger, loadSettingsOrExit, runService } from '@sheetgate/service-runtime';
import { createAuthService } from './service.ts';
import { authSettingsSchema } from './settings.ts';

const settings = loadSettingsOrExit('auth', authSettingsSchema);
const logger = createLogger({ service: 'auth', level: settings.LOG_LEVEL });

await runService('auth', logger, () => createAuthService(settings, logger));
