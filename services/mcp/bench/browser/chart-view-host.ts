/**
 * The host page of `pnpm bench:chart-view` (../chart-view.ts): the official SDK's AppBridge showing
 * the chart view in an iframe of its own origin (no sandbox proxy: what is timed is the view's
 * work), answering its read_ranges calls from memory, so neither Google nor the service is timed.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

interface BenchChart {
  html: string;
  input: Record<string, unknown>;
  result: { structuredContent: Record<string, unknown> };
  /** read_ranges' valueRanges by range, as the service answers them. */
  cells: Record<string, Array<Array<string | number>>>;
}

/** Milliseconds from the tool's result sent to the chart drawn (Chartist's `created`). */
async function timeChart(chart: BenchChart): Promise<number> {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  iframe.style.cssText = 'width:860px;height:600px;border:0';
  document.body.replaceChildren(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'Sheetgate bench host', version: '1.0.0' },
    { serverTools: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } },
  );
  bridge.oncalltool = async (params) => {
    const { ranges } = params.arguments as { ranges: string[] };
    const valueRanges = ranges.map((range) => ({
      range,
      values: chart.cells[range] ?? [],
      totalRows: chart.cells[range]?.length ?? 0,
      offset: 0,
      returnedRows: chart.cells[range]?.length ?? 0,
      nextOffset: null,
      lastRow: null,
      lastColumn: null,
      stoppedBy: 'end',
      revision: 'bench',
    }));
    return { content: [], structuredContent: { valueRanges } };
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = chart.html;
  await initialized;
  const box = () => iframe.contentDocument!.getElementById('chart')!;
  const drawn = new Promise<number>((resolve) => {
    new MutationObserver(() => {
      if (box().dataset.drawn) resolve(performance.now());
    }).observe(box(), { attributes: true, attributeFilter: ['data-drawn'] });
  });
  await bridge.sendToolInput({ arguments: chart.input });
  const sent = performance.now();
  await bridge.sendToolResult(chart.result as never);
  const at = await drawn;
  await bridge.close();
  return at - sent;
}

(window as unknown as { timeChart: typeof timeChart }).timeChart = timeChart;
