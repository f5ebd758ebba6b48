/**
 * The host page of the MCP Apps test host (../apps-host.ts): what a web host such as Claude does
 * with a view, built on the official SDK's host side. An AppBridge talks to the view through a
 * sandbox proxy on another origin (the extension's "Sandbox proxy"), and forwards the view's
 * tools/call and resources/read to the host's MCP client — which lives in the test process with
 * the credential (`sheetgateHost*` bindings), never in this page nor in the view.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { ShowView } from '../show-view.ts';

/** What the test process exposes to the page (page.exposeFunction). */
interface HostBindings {
  sheetgateHostCall(method: string, params: unknown): Promise<unknown>;
  sheetgateHostOpenLink(url: string): Promise<void>;
}

const bindings = window as unknown as HostBindings;

async function show(view: ShowView): Promise<void> {
  const iframe = document.createElement('iframe');
  iframe.title = 'Sheetgate view';
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  iframe.style.cssText = 'width:100%;height:200px;border:1px solid #999';
  const ready = new Promise<void>((resolve) => {
    const listener = (event: MessageEvent) => {
      if (
        event.source === iframe.contentWindow &&
        event.data?.method === 'ui/notifications/sandbox-proxy-ready'
      ) {
        window.removeEventListener('message', listener);
        resolve();
      }
    };
    window.addEventListener('message', listener);
  });
  iframe.src = view.sandboxUrl;
  document.body.append(iframe);
  await ready;

  const bridge = new AppBridge(
    null,
    { name: 'Sheetgate test host', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: view.hostContext },
  );
  bridge.oncalltool = (params) => bindings.sheetgateHostCall('tools/call', params) as never;
  bridge.onreadresource = (params) => bindings.sheetgateHostCall('resources/read', params) as never;
  bridge.onlistresources = (params) => bindings.sheetgateHostCall('resources/list', params) as never;
  bridge.onopenlink = async ({ url }) => {
    await bindings.sheetgateHostOpenLink(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${Math.ceil(height) + 2}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  await bridge.sendSandboxResourceReady({ html: view.html, ...(view.csp ? { csp: view.csp } : {}) });
  await initialized;
  await bridge.sendToolInput({ arguments: view.input });
  await bridge.sendToolResult(view.result as never);
  document.body.dataset.shown = 'yes';
}

(window as unknown as { sheetgateShow: typeof show }).sheetgateShow = show;
