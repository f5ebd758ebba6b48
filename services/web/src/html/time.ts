import { html, type SafeHtml } from './html.ts';

/** An RFC 3339 time from auth as `2026-03-01 14:05 UTC` in a `<time>` element; empty → `fallback`. */
export function displayTime(iso: string, fallback = 'Never'): SafeHtml | string {
  const date = iso ? new Date(iso) : undefined;
  if (!date || Number.isNaN(date.getTime())) return fallback;
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}
