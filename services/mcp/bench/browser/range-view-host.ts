/**
 * The host page of `pnpm bench:range-view` (../range-view.ts): the official SDK's AppBridge showing
 * the range view in an iframe of its own origin (no sandbox proxy: what is timed is the view's
 * work), answering its read_cell_details call from memory, so neither Google nor the service is
 * timed.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface BenchRange {
  html: string;
  input: Record<string, unknown>;
  result: { structuredContent: { values: unknown[][] } };
}

/** Milliseconds from the tool's result sent to the grid built, and to the frame after it (laid out). */
async function timeRange(range: BenchRange): Promise<{ built: number; laidOut: number }> {
  const iframe = document.createElement('iframe');
  iframe.title = 'range view';
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  iframe.style.cssText = 'width:860px;height:600px;border:0';
  document.body.replaceChildren(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'Sheetgate bench host', version: '1.0.0' },
    { serverTools: {}, openLinks: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } },
  );
  bridge.oncalltool = async () => ({
    content: [],
    structuredContent: { cells: [], nextOffset: null, scannedCells: 0 },
  });
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = range.html;
  await initialized;
  const rows = range.result.structuredContent.values.length;
  const grid = iframe.contentDocument!.getElementById('grid')!;
  const built = new Promise<number>((resolve) => {
    new MutationObserver(() => {
      if ((grid as HTMLTableElement).tBodies[0]?.rows.length === rows) resolve(performance.now());
    }).observe(grid, { childList: true });
  });
  await bridge.sendToolInput({ arguments: range.input });
  const sent = performance.now();
  await bridge.sendToolResult(range.result as never);
  const at = await built;
  const laidOut = await new Promise<number>((resolve) =>
    iframe.contentWindow!.requestAnimationFrame(() => {
      // Reading a size forces the layout the frame would do, before it is measured.
      void grid.offsetHeight;
      resolve(performance.now());
    }),
  );
  await bridge.close();
  return { built: at - sent, laidOut: laidOut - sent };
}

(window as unknown as { timeRange: typeof timeRange }).timeRange = timeRange;
