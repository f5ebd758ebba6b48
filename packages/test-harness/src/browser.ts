import makeFetchCookie from 'fetch-cookie';
import { parse } from 'node-html-parser';
import { CookieJar } from 'tough-cookie';

export interface BrowserStep {
  url: string;
  status: number;
  location?: string;
  body: string;
}

/**
 * An HTTP client that keeps cookies and follows redirects one at a time, like a browser without
 * JavaScript: enough to drive OAuth redirects and server-rendered forms in tests. Redirects to a
 * URL `stopAt` accepts are not followed (an app's redirect URI where nothing listens).
 */
export function createBrowser() {
  const jar = new CookieJar();
  const fetchWithCookies = makeFetchCookie(fetch, jar);

  async function request(url: string, init: RequestInit = {}): Promise<BrowserStep> {
    const response = await fetchWithCookies(url, { ...init, redirect: 'manual' });
    const location = response.headers.get('location');
    return {
      url,
      status: response.status,
      ...(location ? { location: new URL(location, url).toString() } : {}),
      body: await response.text(),
    };
  }

  return {
    jar,
    request,
    /** Requests `url`, then follows redirects until a non-redirect answer or a URL `stopAt` accepts. */
    async navigate(
      url: string,
      init: RequestInit = {},
      stopAt: (url: URL) => boolean = () => false,
    ): Promise<BrowserStep & { redirects: string[] }> {
      const redirects: string[] = [];
      let step = await request(url, init);
      for (let hops = 0; step.location && step.status >= 300 && step.status < 400; hops++) {
        if (hops > 20) throw new Error(`too many redirects: ${redirects.join(' -> ')}`);
        redirects.push(step.location);
        if (stopAt(new URL(step.location))) break;
        step = await request(step.location);
      }
      return { ...step, redirects };
    },
    /**
     * Presses the submit button whose accessible name is `label` on a server-rendered page, sending
     * its form as a browser without JavaScript would: named fields, checked boxes (minus those whose
     * value is in `untick`), and the button's own name and value.
     */
    pressButton(page: { url: string; body: string }, label: string, options: { untick?: string[] } = {}) {
      for (const form of parse(page.body).querySelectorAll('form')) {
        const button = form
          .querySelectorAll('button, input[type=submit]')
          .find((candidate) => accessibleName(candidate).toLowerCase() === label.toLowerCase());
        if (!button) continue;
        const fields = new URLSearchParams();
        for (const control of form.querySelectorAll('input, select, textarea')) {
          const name = control.getAttribute('name');
          const type = (control.getAttribute('type') ?? 'text').toLowerCase();
          if (!name || type === 'submit' || type === 'button') continue;
          const value = control.getAttribute('value') ?? '';
          if ((type === 'checkbox' || type === 'radio') && control.getAttribute('checked') === undefined)
            continue;
          if (type === 'checkbox' && options.untick?.includes(value)) continue;
          fields.append(name, value);
        }
        const buttonName = button.getAttribute('name');
        if (buttonName) fields.append(buttonName, button.getAttribute('value') ?? '');
        const action = new URL(form.getAttribute('action') ?? page.url, page.url).toString();
        if ((form.getAttribute('method') ?? 'get').toLowerCase() === 'get')
          return request(`${action}?${fields}`);
        return request(action, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: fields.toString(),
        });
      }
      throw new Error(`no button named "${label}" on ${page.url}`);
    },
    /** Submits a form as a browser would (application/x-www-form-urlencoded). */
    /** Posts a form; a field sent more than once (checkboxes) is given as [name, value] pairs. */
    submitForm(url: string, fields: Record<string, string> | Array<[string, string]>) {
      return request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    },
  };
}

export type Browser = ReturnType<typeof createBrowser>;

/** A button's accessible name: aria-label, else its text (a <button>) or its value (an <input>). */
function accessibleName(element: {
  tagName: string;
  getAttribute(name: string): string | undefined;
  text: string;
}): string {
  const name =
    element.getAttribute('aria-label') ??
    (element.tagName.toLowerCase() === 'input' ? (element.getAttribute('value') ?? '') : element.text);
  return name.replace(/\s+/g, ' ').trim();
}
