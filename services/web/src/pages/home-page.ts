import { html } from '../html/html.ts';
import { renderPage } from '../html/layout.ts';

export function homePage(baseUrl: string): string {
  const body = html`<h1>Sheetgate</h1>
<section>
<p>Sheetgate lets MCP clients and scripts read and write your Google Sheets, with your consent.</p>
<p>MCP endpoint: <code>${`${baseUrl}/api/mcp`}</code></p>
<p>Add that URL to your MCP client and it will ask you to sign in and allow it; scripts use an API key from
your dashboard in the <code>x-api-key</code> header.</p>
<p class="actions"><a class="button primary" href="/dashboard">Open your dashboard</a></p>
</section>`;
  return renderPage({ title: 'Google Sheets for MCP clients', body, narrow: true });
}
