export { type ChildService, spawnService, waitUntilReady } from './child-service.ts';
export { defaultTemplateDir } from './database-template.ts';
export { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres.ts';
export { createGateway, type ServiceOrigins } from './gateway.ts';
export { generateLocalSecrets, type LocalSecrets } from './local-secrets.ts';
export { type StackPortSetting, stackPortSettings } from './stack-settings.ts';
