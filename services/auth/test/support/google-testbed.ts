import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGoogleEmulator } from '@sheetgate/google-emulator';
import { createLogger, jsonErrors, routeMiddleware } from '@sheetgate/service-runtime';
import {
  type Browser,
  createTestDatabase,
  createTestRedis,
  generateLocalSecrets,
  type TestDatabase,
  type TestRedis,
} from '@sheetgate/test-harness';
import Koa from 'koa';
import { createAuditLog } from '../../src/audit/index.ts';
import type { Cache } from '../../src/cache/cache.ts';
import { createMemoryCache } from '../../src/cache/memory-cache.ts';
import { createRedisCache } from '../../src/cache/redis-cache.ts';
import { parseKeyring } from '../../src/crypto/keyring.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createDatabasePool, type DatabasePool } from '../../src/db/pool.ts';
import {
  createGoogleConnectionLibrary,
  createGoogleSignIn,
  createGoogleTokenBroker,
  type GoogleSettings,
} from '../../src/google/index.ts';
import type { TokenBrokerTiming } from '../../src/google/token-broker.ts';
import { createRateLimits } from '../../src/rate-limits/index.ts';
import { createSessionStore } from '../../src/sessions/index.ts';
import { createUserLibrary } from '../../src/users/index.ts';
import { type GoogleProxy, startGoogleProxy } from './google-proxy.ts';

const logger = createLogger({ service: 'test', level: 'silent' });

/**
 * Google sign-in under test: the sign-in router in a Koa app on a real port, a real database
 * (and Redis when there is one), and the Google emulator in-process with this app's redirect URI.
 */
export async function startGoogleTestbed(
  options: {
    accessTokenTtlSeconds?: number;
    /**
     * Sign-in reaches the emulator through `googleProxy` (also the ID tokens' issuer), so a test can
     * change what Google's token endpoint answers.
     */
    googleThroughProxy?: boolean;
  } = {},
) {
  const database: TestDatabase = await createTestDatabase();
  const redis: TestRedis = await createTestRedis();
  await migrateToLatest(database.url, logger);
  const pool: DatabasePool = createDatabasePool(database.url, 6);
  const namespace = `sheetgate:test:${randomBytes(4).toString('hex')}:`;
  const caches: Cache[] = [];
  /** A cache as another auth replica sees it: the same Redis, or the one in-process cache. */
  const sharedCache = createMemoryCache();
  const newCache = async () => {
    if (!redis.url) return sharedCache;
    const cache = await createRedisCache(redis.url, { namespace });
    caches.push(cache);
    return cache;
  };
  const cache = await newCache();
  const closers: Array<() => Promise<void>> = [];

  let handler: RequestListener = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const clientId = `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`;
  const clientSecret = `GOCSPX-${randomBytes(18).toString('base64url')}`;
  const googleProxy = options.googleThroughProxy ? await startGoogleProxy() : undefined;
  if (googleProxy) closers.push(googleProxy.close);
  const emulator = await startGoogleEmulator({
    port: 0,
    // dave@gmail.com: a personal Google account (no Workspace domain); the others are example.com's.
    accounts: ['alice@example.com', 'bob@example.com', 'carol@example.com', 'dave@gmail.com'],
    clients: [{ clientId, clientSecret, redirectUris: [`${baseUrl}/api/auth/google/callback`] }],
    ...(options.accessTokenTtlSeconds ? { accessTokenTtlSeconds: options.accessTokenTtlSeconds } : {}),
    ...(googleProxy ? { publicUrl: googleProxy.url } : {}),
  });
  const emulatorUrl = emulator.url.replace(/\/+$/, '');
  if (googleProxy) googleProxy.target = `http://127.0.0.1:${emulator.port}`;

  const settings: GoogleSettings = {
    BASE_URL: baseUrl,
    GOOGLE_CLIENT_ID: clientId,
    GOOGLE_CLIENT_SECRET: clientSecret,
    GOOGLE_EMULATOR_URL: emulatorUrl,
  };
  const keyring = parseKeyring(generateLocalSecrets().AUTH_ENCRYPTION_KEYS!);
  const users = createUserLibrary(pool);
  const sessions = createSessionStore(pool);
  const connections = createGoogleConnectionLibrary({ pool, keyring });
  const audit = createAuditLog(pool);
  const rateLimits = await createRateLimits({
    pool,
    ...(redis.url ? { redisUrl: redis.url } : {}),
    keyPrefix: `${namespace}rl`,
  });
  const signInLimiter = rateLimits.signIn;
  /** The people whose Google connection changed, as the MCP replicas would be told, in order. */
  const connectionChanges: string[] = [];
  const edgeRevocations = {
    googleConnectionChanged: async (userId: string) => void connectionChanges.push(userId),
  };
  const routes = createGoogleSignIn({
    cache,
    settings,
    keyring,
    logger,
    users,
    sessions,
    connections,
    audit,
    signInLimiter,
    edgeRevocations,
  });
  const app = new Koa({ proxy: true });
  app.use(jsonErrors(logger));
  app.use(routeMiddleware(routes));
  // Stand-ins for the pages sign-in returns to.
  app.use((ctx) => {
    ctx.body = { page: ctx.path };
  });
  handler = app.callback();

  return {
    baseUrl,
    emulatorUrl,
    database,
    redis,
    pool,
    cache,
    keyring,
    settings,
    users,
    sessions,
    connections,
    audit,
    signInLimiter,
    connectionChanges,
    /** The proxy sign-in reaches Google through, with `googleThroughProxy`. */
    googleProxy,
    /**
     * A token broker as one auth replica has it (its own cache connection and in-process state),
     * talking to Google through `via` (a counting proxy) when given.
     */
    async newBroker(timing?: Partial<TokenBrokerTiming>, via?: GoogleProxy) {
      return createGoogleTokenBroker({
        cache: await newCache(),
        settings: via ? { ...settings, GOOGLE_EMULATOR_URL: via.url } : settings,
        keyring,
        connections,
        logger,
        audit,
        edgeRevocations,
        ...(timing ? { timing } : {}),
      });
    },
    /** A proxy in front of the emulator that counts token requests and can fail them. */
    async proxy() {
      const proxy = await startGoogleProxy(emulatorUrl);
      closers.push(proxy.close);
      return proxy;
    },
    /** Revokes every grant of the account at the emulator (as the person would at Google). */
    async revokeAtGoogle(email: string) {
      const response = await fetch(`${emulatorUrl}/__emulator/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      if (!response.ok) throw new Error(`emulator revoke answered ${response.status}`);
    },
    async close() {
      for (const closeProxy of closers) await closeProxy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await emulator.close();
      for (const each of caches) await each.close();
      await rateLimits.close();
      await sharedCache.close();
      await pool.end();
      await redis.close();
      await database.close();
    },
  };
}

export type GoogleTestbed = Awaited<ReturnType<typeof startGoogleTestbed>>;

interface FormControl {
  tag: 'input' | 'button';
  type: string;
  name?: string;
  value: string;
  checked: boolean;
  label: string;
}

const attribute = (tag: string, name: string) =>
  new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag)?.slice(1).find(Boolean);
const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const textOf = (html: string) =>
  decode(
    html
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );

/** The forms of a server-rendered page, as a browser without JavaScript sees them. */
export function parseForms(html: string, pageUrl: string) {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map(([, formTag = '', body = '']) => {
    const controls: FormControl[] = [];
    for (const match of body.matchAll(/<(input)\b([^>]*)>|<(button)\b([^>]*)>([\s\S]*?)<\/button>/gi)) {
      const tagText = match[2] ?? match[4] ?? '';
      const tag = (match[1] ?? match[3])!.toLowerCase() as 'input' | 'button';
      const value = attribute(tagText, 'value');
      controls.push({
        tag,
        type: (attribute(tagText, 'type') ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase(),
        ...(attribute(tagText, 'name') ? { name: decode(attribute(tagText, 'name')!) } : {}),
        value: value === undefined ? '' : decode(value),
        checked: /\schecked\b/i.test(tagText),
        label: decode(attribute(tagText, 'aria-label') ?? (match[5] !== undefined ? textOf(match[5]) : '')),
      });
    }
    const action = new URL(decode(attribute(formTag, 'action') ?? pageUrl), pageUrl).toString();
    return { action, method: (attribute(formTag, 'method') ?? 'get').toLowerCase(), controls };
  });
}

/**
 * At the emulator's chooser: presses the button named `buttonLabel` (an account's email, or
 * "Cancel"), with every ticked box ticked except the scopes in `untick`. Returns the POST's answer.
 */
export async function pressChooserButton(
  browser: Browser,
  page: { url: string; body: string },
  buttonLabel: string,
  untick: string[] = [],
) {
  for (const form of parseForms(page.body, page.url)) {
    const button = form.controls.find(
      (control) => control.type === 'submit' && control.label.toLowerCase() === buttonLabel.toLowerCase(),
    );
    if (!button) continue;
    const body = new URLSearchParams();
    for (const control of form.controls) {
      if (!control.name || control.type === 'submit') continue;
      if ((control.type === 'checkbox' || control.type === 'radio') && !control.checked) continue;
      if (control.type === 'checkbox' && untick.includes(control.value)) continue;
      body.append(control.name, control.value);
    }
    if (button.name) body.append(button.name, button.value);
    if (form.method === 'get') return browser.request(`${form.action}?${body.toString()}`);
    return browser.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }
  throw new Error(`no button "${buttonLabel}" on ${page.url}:\n${page.body.slice(0, 2000)}`);
}

/**
 * A whole Google sign-in in `browser`: start with `returnTo`, choose `account` (or "Cancel") at
 * the emulator, then follow redirects back to Sheetgate until a page of ours answers.
 */
export async function signInWithGoogle(
  testbed: Pick<GoogleTestbed, 'baseUrl'>,
  browser: Browser,
  options: { account: string; returnTo?: string; untick?: string[] },
) {
  const start = `${testbed.baseUrl}/api/auth/google/start${
    options.returnTo === undefined ? '' : `?return_to=${encodeURIComponent(options.returnTo)}`
  }`;
  const chooser = await browser.navigate(start);
  if (chooser.status !== 200) throw new Error(`expected the chooser page, got ${chooser.status}`);
  const googleRedirect = chooser.redirects.at(-1)!;
  const pressed = await pressChooserButton(browser, chooser, options.account, options.untick);
  if (!pressed.location) return { googleRedirect, chooser, callback: undefined, final: pressed };
  const callbackUrl = pressed.location;
  const callback = await browser.request(callbackUrl);
  const final = callback.location ? await browser.navigate(callback.location) : callback;
  return { googleRedirect, chooser, callbackUrl, callback, final };
}
