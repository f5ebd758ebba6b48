import makeFetchCookie from 'fetch-cookie';
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
    /** Submits a form as a browser would (application/x-www-form-urlencoded). */
    submitForm(url: string, fields: Record<string, string>) {
      return request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
    },
  };
}

export type Browser = ReturnType<typeof createBrowser>;
