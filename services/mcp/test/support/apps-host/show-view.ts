import type { McpUiHostContext, McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';

/** What the test process hands the host page to show (page/host-page.ts `sheetgateShow`). */
export interface ShowView {
  html: string;
  csp: McpUiResourceCsp | undefined;
  sandboxUrl: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
  hostContext: McpUiHostContext;
}
