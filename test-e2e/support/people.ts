import { createAccountServiceClient } from '@sheetgate/proto';
import type { Stack } from '@sheetgate/test-harness';
import { type Browser, createBrowser } from '@sheetgate/test-harness';

/** A person in a browser, signed in to Sheetgate with Google (the emulator's account chooser). */
export async function signIn(stack: Stack, email: string, browser: Browser = createBrowser()) {
  const chooser = await browser.navigate(`${stack.baseUrl}/api/auth/google/start?return_to=%2Fdashboard`);
  if (chooser.status !== 200) throw new Error(`expected Google's account chooser, got ${chooser.status}`);
  const chosen = await browser.pressButton(
    { url: chooser.redirects.at(-1) ?? chooser.url, body: chooser.body },
    email,
  );
  const landed = await browser.navigate(chosen.location!, {}, (url) => url.pathname === '/dashboard');
  if (new URL(landed.redirects.at(-1) ?? landed.url).pathname !== '/dashboard') {
    throw new Error(`sign-in did not reach the dashboard: ${landed.redirects.join(' -> ')}`);
  }
  const cookie = (await browser.jar.getCookies(stack.baseUrl)).find((entry) => entry.key === 'sg_session');
  if (!cookie) throw new Error('no dashboard session after sign-in');
  return { browser, sessionCookie: cookie.value };
}

/** The AccountService the web pages use, for creating keys in tests as the dashboard does. */
export function accountService(stack: Stack) {
  return createAccountServiceClient({
    address: `127.0.0.1:${stack.ports.AUTH_GRPC_PORT}`,
    serviceToken: stack.serviceToken,
  });
}

export async function createApiKey(
  stack: Stack,
  sessionCookie: string,
  scopes: string[] = ['sheets:read', 'sheets:write'],
) {
  const accounts = accountService(stack);
  try {
    return await accounts.createApiKey({
      sessionCookie,
      name: `e2e ${scopes.join(' ')}`,
      scopes,
      expiresAt: '',
    });
  } finally {
    accounts.close();
  }
}
