import { type GoogleEmulator, startGoogleEmulator } from '@sheetgate/google-emulator';
import { type AuthUnderTest, startAuthUnderTest } from './auth-process.ts';
import { type GoogleProxy, startGoogleProxy } from './google-proxy.ts';

export interface AuthWithGoogle extends AuthUnderTest {
  emulator: GoogleEmulator;
  /** Between auth and the emulator when asked for (to slow or fail Google's token endpoint). */
  proxy: GoogleProxy | undefined;
}

/**
 * A real auth process signing people in at the Google emulator (in this test process, its one
 * client accepting any redirect URI). With `proxy`, auth reaches Google through a proxy that the
 * emulator knows as its public URL (so the ID tokens' issuer is what auth expects).
 */
export async function startAuthWithGoogle(
  extraEnv: Record<string, string> = {},
  options: { proxy?: boolean; accessTokenTtlSeconds?: number } = {},
): Promise<AuthWithGoogle> {
  const proxy = options.proxy ? await startGoogleProxy() : undefined;
  const emulator = await startGoogleEmulator({
    port: 0,
    accounts: ['alice@example.com', 'bob@example.com', 'carol@example.com'],
    ...(proxy ? { publicUrl: proxy.url } : {}),
    ...(options.accessTokenTtlSeconds ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {}),
  });
  if (proxy) proxy.target = `http://127.0.0.1:${emulator.port}`;
  const subject = await startAuthUnderTest({
    GOOGLE_EMULATOR_URL: emulator.url.replace(/\/+$/, ''),
    GOOGLE_CLIENT_ID: 'emulator-client',
    GOOGLE_CLIENT_SECRET: 'emulator-secret',
    ...extraEnv,
  });
  const stopAuth = subject.stop;
  return Object.assign(subject, {
    emulator,
    proxy,
    async stop() {
      await stopAuth();
      await emulator.close();
      await proxy?.close();
    },
  });
}
