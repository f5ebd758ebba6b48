import { createLogger, loadSettingsOrExit, shutdownOnSignals } from '@sheetgate/service-runtime';
import { startEnterpriseIdpEmulator } from './index.ts';
import { idpEmulatorSettingsSchema } from './settings.ts';

const settings = loadSettingsOrExit('enterprise-idp-emulator', idpEmulatorSettingsSchema);
const logger = createLogger({ service: 'enterprise-idp-emulator', level: settings.LOG_LEVEL });
const emulator = await startEnterpriseIdpEmulator({
  port: settings.ENTERPRISE_IDP_EMULATOR_PORT,
  host: settings.ENTERPRISE_IDP_EMULATOR_HOST,
  ...(settings.ENTERPRISE_IDP_EMULATOR_URL ? { publicUrl: settings.ENTERPRISE_IDP_EMULATOR_URL } : {}),
  ...(settings.ENTERPRISE_IDP_EMULATOR_PEOPLE ? { people: settings.ENTERPRISE_IDP_EMULATOR_PEOPLE } : {}),
  ...(settings.ENTERPRISE_IDP_EMULATOR_CLIENTS ? { clients: settings.ENTERPRISE_IDP_EMULATOR_CLIENTS } : {}),
  idJagTtlSeconds: settings.ENTERPRISE_IDP_EMULATOR_ID_JAG_TTL,
});
logger.info({ issuer: emulator.issuer }, `enterprise-idp-emulator listening at ${emulator.issuer}`);
shutdownOnSignals({ logger, servers: [emulator] });
