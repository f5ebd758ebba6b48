import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getToolUiResourceUri, type McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { rolldown } from 'rolldown';
import { UI_EXTENSION, VIEW_MIME_TYPE } from '../../../src/apps/ui-extension.ts';
import { credentialHeaders } from '../stack.ts';
import type { ShowView } from './show-view.ts';

/**
 * An MCP Apps host for tests (docs/design.md §11.11), as a web host such as Claude is one: an MCP
 * client that declares the extension, connected to the real MCP service with a real credential
 * this process holds, and a host page in Chromium that shows a view with the official SDK's
 * AppBridge in a sandboxed iframe behind a sandbox proxy on another origin. The view's tools/call
 * and resources/read reach the service through this client; the page and the view never see the
 * credential. Origins are Playwright routes (no ports): the host page, the sandbox proxy, and
 * nothing else — every other request is recorded in `outside` and refused.
 */
export const HOST_ORIGIN = 'http://host.sheetgate.test';
export const SANDBOX_ORIGIN = 'http://sandbox.sheetgate.test';

export interface AppsHostOptions {
  chromium: Browser;
  mcpUrl: string;
  /** The credential the host holds (an access token or an API key), sent by this process only. */
  credential: string;
  era: 'legacy' | 'modern';
  /**
   * The sandbox's Content-Security-Policy: built from the resource's `_meta.ui.csp` as the
   * extension prescribes (the default), or none at all — a host that enforces nothing, which
   * leaves only the view's own policy.
   */
  sandboxPolicy?: 'from-metadata' | 'none';
  viewport?: { width: number; height: number };
  /** The host's theme, told to the view in its host context. */
  theme?: 'light' | 'dark';
}

/** What the view asked of the host, and the host's answer. */
export interface HostCall {
  method: string;
  params: { name?: string; arguments?: Record<string, unknown>; uri?: string };
  result: unknown;
}

export interface ShownView {
  page: Page;
  /** The view's own document (the sandbox proxy's inner frame). */
  view: Frame;
  /** The tool's result as the host received it (and passed on to the view). */
  result: ToolResult;
  calls: HostCall[];
  /** Links the view asked the host to open (ui/open-link). */
  links: string[];
  /** Requests to any origin but the host's and the sandbox's: none reach anything. */
  outside: string[];
  /** The sandbox document's Content-Security-Policy header, when the host set one. */
  sandboxPolicy: string | undefined;
  close(): Promise<void>;
}

export interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface AppsHost {
  client: Client;
  /** Calls `tool` as the model would, and shows its result in the tool's view. */
  show(tool: string, args: Record<string, unknown>): Promise<ShownView>;
  close(): Promise<void>;
}

export async function openAppsHost(options: AppsHostOptions): Promise<AppsHost> {
  const client = new Client(
    { name: 'sheetgate-apps-test-host', version: '1.0.0' },
    {
      capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } },
      ...(options.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}),
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
      requestInit: { headers: credentialHeaders(options.credential) },
    }),
  );
  const { tools } = await client.listTools();
  const scripts = await pageScripts();
  const contexts = new Set<BrowserContext>();

  return {
    client,
    async show(name, args) {
      const tool = tools.find((candidate) => candidate.name === name);
      const uri = tool && getToolUiResourceUri(tool);
      if (!uri) throw new Error(`${name} has no view for this host (tools/list gave it no _meta.ui)`);
      const [resource, result] = await Promise.all([
        client.readResource({ uri }),
        client.callTool({ name, arguments: args }) as Promise<ToolResult>,
      ]);
      const content = resource.contents[0] as {
        mimeType?: string;
        text?: string;
        _meta?: { ui?: { csp?: McpUiResourceCsp } };
      };
      if (content?.mimeType !== VIEW_MIME_TYPE || typeof content.text !== 'string')
        throw new Error(`${uri} is not an MCP Apps HTML view`);
      const csp = content._meta?.ui?.csp;
      const sandboxPolicy = options.sandboxPolicy === 'none' ? undefined : policyFromMetadata(csp);

      const context = await options.chromium.newContext({
        viewport: options.viewport ?? { width: 900, height: 700 },
      });
      contexts.add(context);
      context.setDefaultTimeout(10_000);
      const outside: string[] = [];
      // Registered first, so matched last (Playwright tries the newest route first).
      await context.route('**/*', (route) => {
        outside.push(route.request().url());
        return route.abort('blockedbyclient');
      });
      await context.route(`${HOST_ORIGIN}/`, (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title></head><body><script>${scripts.host}</script></body></html>`,
        }),
      );
      await context.route(`${SANDBOX_ORIGIN}/sandbox.html`, (route) =>
        route.fulfill({
          contentType: 'text/html',
          headers: sandboxPolicy ? { 'content-security-policy': sandboxPolicy } : {},
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox</title><style>html,body{margin:0;height:100%}</style></head><body><script>${scripts.sandbox}</script></body></html>`,
        }),
      );
      const page = await context.newPage();
      const calls: HostCall[] = [];
      const links: string[] = [];
      await page.exposeFunction('sheetgateHostCall', async (method: string, params: HostCall['params']) => {
        const answer =
          method === 'tools/call'
            ? await client.callTool(params as { name: string; arguments?: Record<string, unknown> })
            : method === 'resources/read'
              ? await client.readResource(params as { uri: string })
              : await client.listResources();
        calls.push({ method, params, result: answer });
        return answer;
      });
      await page.exposeFunction('sheetgateHostOpenLink', async (url: string) => {
        links.push(url);
      });
      await page.goto(`${HOST_ORIGIN}/`);
      const shown: ShowView = {
        html: content.text,
        csp,
        sandboxUrl: `${SANDBOX_ORIGIN}/sandbox.html`,
        input: args,
        result: result as Record<string, unknown>,
        hostContext: {
          theme: options.theme ?? 'light',
          displayMode: 'inline',
          platform: 'web',
          locale: 'en-US',
        },
      };
      await page.evaluate(`sheetgateShow(${JSON.stringify(shown)})`);
      const view = page.frames().find((frame) => frame.parentFrame()?.url().startsWith(SANDBOX_ORIGIN));
      if (!view) throw new Error('the view frame did not appear');
      return {
        page,
        view,
        result,
        calls,
        links,
        outside,
        sandboxPolicy,
        close: async () => {
          contexts.delete(context);
          await context.close();
        },
      };
    },
    async close() {
      await Promise.all([...contexts].map((context) => context.close()));
      await client.close();
    },
  };
}

/**
 * The Content-Security-Policy a host builds from a resource's `_meta.ui.csp` (the extension's
 * "CSP Construction from Metadata"); 'self' is the sandbox's own origin.
 */
export function policyFromMetadata(csp: McpUiResourceCsp | undefined): string {
  const list = (domains: string[] | undefined) => (domains?.length ? ` ${domains.join(' ')}` : '');
  const resources = list(csp?.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${resources}`,
    `style-src 'self' 'unsafe-inline'${resources}`,
    `connect-src 'self'${list(csp?.connectDomains)}`,
    `img-src 'self' data:${resources}`,
    `font-src 'self'${resources}`,
    `media-src 'self' data:${resources}`,
    `frame-src ${csp?.frameDomains?.length ? csp.frameDomains.join(' ') : "'none'"}`,
    "object-src 'none'",
    `base-uri ${csp?.baseUriDomains?.length ? csp.baseUriDomains.join(' ') : "'self'"}`,
  ].join('; ');
}

const pageDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'page');
let built: Promise<{ host: string; sandbox: string }> | undefined;

/** The host page's and the sandbox proxy's scripts, bundled once per test process. */
function pageScripts(): Promise<{ host: string; sandbox: string }> {
  built ??= (async () => {
    const bundle = async (file: string) => {
      const build = await rolldown({
        input: path.join(pageDir, file),
        platform: 'browser',
        logLevel: 'silent',
      });
      try {
        const { output } = await build.generate({ format: 'iife' });
        return output[0].code.replaceAll('</script', '<\\/script');
      } finally {
        await build.close();
      }
    };
    const [host, sandbox] = await Promise.all([bundle('host-page.ts'), bundle('sandbox-proxy.ts')]);
    return { host, sandbox };
  })();
  return built;
}
