import escapeHtml from 'escape-html';

/** Markup that is already safe: produced by the `html` tag, never by concatenating input. */
export class SafeHtml {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

/** What a template may interpolate: text (escaped), safe markup, lists of either, or nothing. */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * The one way pages build markup: every interpolation is escaped (escape-html turns `& < > " '`
 * into entities, so text and quoted attribute values are inert) unless it is itself `SafeHtml`
 * from this tag. Attribute values must be quoted in the template; URLs are built by our code
 * (`href`) from fixed paths plus `encodeURIComponent`, never taken from input.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0]!;
  for (let index = 0; index < values.length; index++) {
    markup += render(values[index]!) + strings[index + 1]!;
  }
  return new SafeHtml(markup);
}

// Bidirectional controls (LRE…RLO, LRI…PDI, LRM/RLM, ALM) let a name reorder the text around it
// (CVE-2021-42574 "Trojan Source" is the same trick in code). Replaced by a visible mark.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A name someone else chose (an OAuth client's name, an API key's name) made fit to show: control
 * and bidirectional-override characters replaced by U+FFFD, at most `maxLength` characters, and
 * wrapped in `<bdi>` so right-to-left text cannot flip the sentence it sits in.
 */
export function untrustedName(name: string, maxLength = 80): SafeHtml {
  const cleaned = name.replace(BIDI_CONTROLS, '\ufffd').replace(CONTROL_CHARACTERS, '\ufffd').trim();
  const characters = [...cleaned];
  const shown = characters.length > maxLength ? `${characters.slice(0, maxLength).join('')}…` : cleaned;
  return html`<bdi class="untrusted">${shown || '(no name)'}</bdi>`;
}
