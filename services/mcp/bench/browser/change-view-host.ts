/**
 * The host page of `pnpm bench:change-view` (../change-view.ts): the official SDK's AppBridge
 * showing the change view in an iframe of its own origin (no sandbox proxy: what is timed is the
 * view's work), answering its read_change_cells call from memory, so neither the journal, Google
 * nor the service is timed.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface BenchChange {
  html: string;
  /** The tool's result the view is shown (a change of the cells below). */
  result: { structuredContent: Record<string, unknown> };
  /** read_change_cells' answer, as the service gives it. */
  cells: Record<string, unknown>;
}

/** Milliseconds from the tool's result sent to both grids drawn (`#cells[data-drawn]`). */
async function timeChange(change: BenchChange): Promise<number> {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  iframe.style.cssText = 'width:1200px;height:800px;border:0';
  document.body.replaceChildren(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'Sheetgate bench host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } },
  );
  bridge.oncalltool = async () => ({ content: [], structuredContent: change.cells });
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = change.html;
  await initialized;
  const cells = iframe.contentDocument!.getElementById('cells')!;
  const drawn = new Promise<number>((resolve) => {
    new MutationObserver(() => {
      if (cells.dataset.drawn) resolve(performance.now());
    }).observe(cells, { attributes: true, attributeFilter: ['data-drawn'] });
  });
  await bridge.sendToolInput({ arguments: {} });
  const sent = performance.now();
  await bridge.sendToolResult(change.result as never);
  const at = await drawn;
  await bridge.close();
  return at - sent;
}

(window as unknown as { timeChange: typeof timeChange }).timeChange = timeChange;
