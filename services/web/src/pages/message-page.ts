import { html, type SafeHtml } from '../html/html.ts';
import { type HeaderAccount, renderPage } from '../html/layout.ts';

/** A page that explains what went wrong and what to do next (expired request, refused form…). */
export function messagePage(options: {
  title: string;
  text: string;
  next?: { href: string; label: string };
  account?: HeaderAccount | undefined;
}): string {
  const next: SafeHtml | string = options.next
    ? html`<p class="actions"><a class="button primary" href="${options.next.href}">${options.next.label}</a></p>`
    : '';
  const body = html`<h1>${options.title}</h1>
<section><p>${options.text}</p>${next}</section>`;
  return renderPage({ title: options.title, body, narrow: true, account: options.account });
}
