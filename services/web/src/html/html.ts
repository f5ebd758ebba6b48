import { html as escapingTemplate, type SafeHtml } from '@remix-run/html-template';

export type { SafeHtml };

/**
 * What a template may interpolate: text and numbers (escaped), `SafeHtml` from this tag (kept),
 * lists of either, or nothing. Booleans are left out on purpose: the library would print
 * `${flag && html`…`}` as "false", so a condition must be a ternary, and the compiler says so.
 */
export type HtmlValue = SafeHtml | string | number | null | undefined | HtmlValue[];

/**
 * The one way pages build markup: `@remix-run/html-template`'s tag, which escapes every
 * interpolation (`& < > " '` become entities, so text and quoted attribute values are inert)
 * unless it is `SafeHtml` made by the tag itself. Attribute values must be quoted in the
 * template; URLs are built by our code from fixed paths plus `encodeURIComponent`, never taken
 * from input.
 *
 * Why a tagged template and not JSX: Node 24 runs our `.ts` files by stripping types, with no build
 * step, so `.tsx` cannot run; the JSX-to-string libraries (preact-render-to-string, @kitajs/html,
 * hono/jsx) all need that transform, and the no-build route to them (htm) has its templates
 * unchecked by the compiler and would mean rewriting every page. This library is the same
 * escaping model the pages already had, maintained with Remix, dependency-free, and typed.
 */
export const html: (strings: TemplateStringsArray, ...values: HtmlValue[]) => SafeHtml = escapingTemplate;

// Bidirectional controls (LRE…RLO, LRI…PDI, LRM/RLM, ALM) let a name reorder the text around it
// (CVE-2021-42574 "Trojan Source" is the same trick in code). Replaced by a visible mark.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A name someone else chose, as plain text for an attribute (an `aria-label`): control and
 * bidirectional-override characters replaced by U+FFFD, at most `maxLength` characters.
 */
export function untrustedText(name: string, maxLength = 80): string {
  const cleaned = name.replace(BIDI_CONTROLS, '\ufffd').replace(CONTROL_CHARACTERS, '\ufffd').trim();
  const characters = [...cleaned];
  const shown = characters.length > maxLength ? `${characters.slice(0, maxLength).join('')}…` : cleaned;
  return shown || '(no name)';
}

/**
 * A name someone else chose (an OAuth client's name, an API key's name) made fit to show: as
 * `untrustedText`, wrapped in `<bdi>` so right-to-left text cannot flip the sentence it sits in.
 */
export function untrustedName(name: string, maxLength = 80): SafeHtml {
  return html`<bdi class="untrusted">${untrustedText(name, maxLength)}</bdi>`;
}
