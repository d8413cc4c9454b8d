/**
 * A browser as far as the dashboard can tell over HTTP: a cookie jar, forms posted URL-encoded with the
 * CSRF token of the page they came from, redirects not followed (tests look at them).
 */
export class TestBrowser {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    /** The client address this browser claims through the trusted-proxy header (throttles are per address). */
    readonly address = `10.${rand()}.${rand()}.${rand()}`,
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.request('GET', path, undefined, headers);
  }

  /** Posts a form: `_csrf` from `from` (a page this browser got) unless the fields give their own. */
  async post(path: string, fields: Record<string, string>, from?: Page): Promise<Page> {
    const body = new URLSearchParams({ ...(from ? { _csrf: from.csrfToken() } : {}), ...fields }).toString();
    return this.request('POST', path, body, { 'content-type': 'application/x-www-form-urlencoded' });
  }

  async request(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Page> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: { 'x-forwarded-for': this.address, cookie: this.cookieHeader(), ...headers },
      ...(body !== undefined ? { body } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return new Page(response.status, response.headers, await response.text());
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export class Page {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly html: string,
  ) {}

  get location(): string | null {
    return this.headers.get('location');
  }

  csrfToken(): string {
    const token = /name="_csrf" value="([^"]+)"/.exec(this.html)?.[1];
    if (!token) throw new Error(`no CSRF token on this page (${this.status}):\n${this.html.slice(0, 400)}`);
    return token;
  }

  /** The page's text, tags removed and entities of the common kind decoded. */
  get text(): string {
    return this.html
      .replace(/<[^>]+>/g, ' ')
      .replace(/&quot;/g, '"')
      .replace(/&#39;|&#x27;/g, "'")
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ');
  }
}

function rand(): number {
  return Math.floor(Math.random() * 250) + 1;
}
