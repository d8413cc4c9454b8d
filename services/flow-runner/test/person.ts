import { FormData, request, type Dispatcher } from 'undici';

export interface Page {
  status: number;
  headers: Record<string, string>;
  setCookies: string[];
  text: string;
  url: string;
  location?: string;
}

/** The value of a hidden input (or any input) by name in a page. */
export function inputValue(html: string, name: string): string | undefined {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  return match?.[1];
}

/** The status page's kind (`data-page` attribute) or null when the page is the flow. */
export const statusOf = (page: Page) => /data-page="([a-z_]+)"/.exec(page.text)?.[1] ?? null;
export const h1Of = (page: Page) => /<h1>([^<]*)<\/h1>/.exec(page.text)?.[1] ?? null;

/** A file part of a multipart submission. */
export interface UploadedFile {
  field: string;
  bytes: Buffer;
  filename: string;
  /** `image/jpeg` unless said. */
  type?: string;
}

/**
 * A scripted person with one browser: a cookie jar of its own, no JavaScript, following redirects
 * the way a browser does after a form POST (303 → GET).
 */
export class Person {
  readonly cookies = new Map<string, string>();
  last: Page | null = null;

  constructor(
    readonly origin: string,
    readonly acceptLanguage = 'es-AR,es;q=0.9',
    /** Connections to send through (e.g. a pool opened beforehand, for requests that must really race). */
    readonly dispatcher?: Dispatcher,
  ) {}

  private cookieHeader(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private async fetch(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string> | FormData,
    dispatcher: Dispatcher | undefined = this.dispatcher,
  ): Promise<Page> {
    const absolute = url.startsWith('http') ? url : `${this.origin}${url}`;
    const headers: Record<string, string> = { 'accept-language': this.acceptLanguage, 'user-agent': 'Mozilla/5.0 (test person)' };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let body: string | FormData | undefined;
    if (form instanceof FormData) {
      // undici writes the multipart content type with its boundary.
      body = form;
    } else if (form) {
      body = new URLSearchParams(form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    // A guard against a page that never answers, not a speed limit: with every suite's readings and face
    // judgements on two shared cores, a page has waited more than 20 s for its turn (CI of 2026-12-01).
    const response = await request(absolute, {
      method,
      headers,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
      ...(body === undefined ? {} : { body }),
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = await response.body.text();
    const flat: Record<string, string> = {};
    let setCookies: string[] = [];
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      if (name === 'set-cookie') setCookies = Array.isArray(value) ? value : [value];
      flat[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    for (const line of setCookies) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      if (index > 0) this.cookies.set(pair.slice(0, index).trim(), pair.slice(index + 1).trim());
    }
    return {
      status: response.statusCode,
      headers: flat,
      setCookies,
      text,
      url: absolute,
      ...(flat.location ? { location: flat.location } : {}),
    };
  }

  /** GET, following 303s like a browser; returns the last response (and every hop in `hops`). */
  async get(url: string, hops: Page[] = []): Promise<Page> {
    const page = await this.fetch('GET', url);
    hops.push(page);
    if (page.status === 303 && page.location) return this.get(page.location, hops);
    this.last = page;
    return page;
  }

  async post(url: string, form: Record<string, string>): Promise<Page> {
    const page = await this.fetch('POST', url, form);
    if (page.status === 303 && page.location) return this.get(page.location);
    this.last = page;
    return page;
  }

  /** Submits the current page's form (CSRF token and step id taken from it) with extra fields. */
  async submit(fields: Record<string, string>): Promise<Page> {
    const page = this.last;
    if (!page) throw new Error('no page loaded');
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)?.[1];
    const csrf = inputValue(page.text, '_csrf');
    const step = inputValue(page.text, 'step');
    if (!action || !csrf || !step) throw new Error(`the page has no flow form:\n${page.text.slice(0, 2000)}`);
    return this.post(action, { _csrf: csrf, step, ...fields });
  }

  /**
   * Submits a page's form as multipart with files, as a browser without JavaScript does: CSRF token and
   * step id from the page (the current one unless `from`), then `fields`, then each file in order. The
   * POST's own answer is the first of `hops`.
   */
  async submitFiles(
    fields: Record<string, string>,
    files: readonly UploadedFile[],
    options: { from?: Page; dispatcher?: Dispatcher; hops?: Page[] } = {},
  ): Promise<Page> {
    const page = options.from ?? this.last;
    if (!page) throw new Error('no page loaded');
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)?.[1];
    const csrf = inputValue(page.text, '_csrf');
    const step = inputValue(page.text, 'step');
    if (!action || !csrf || !step) throw new Error(`the page has no flow form:\n${page.text.slice(0, 2000)}`);
    const form = new FormData();
    for (const [name, value] of Object.entries({ _csrf: csrf, step, ...fields })) form.set(name, value);
    for (const file of files)
      form.append(file.field, new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'image/jpeg' }), file.filename);
    const answer = await this.fetch('POST', action, form, options.dispatcher ?? this.dispatcher);
    options.hops?.push(answer);
    if (answer.status === 303 && answer.location) return this.get(answer.location, options.hops);
    this.last = answer;
    return answer;
  }

  /** Posts the current page's document capture form with a photo for the side it asks, as a browser without JavaScript does. */
  uploadCapture(bytes: Buffer, filename = 'foto.jpg', type = 'image/jpeg'): Promise<Page> {
    const side = this.last ? inputValue(this.last.text, 'side') : undefined;
    if (!side) throw new Error('the page asks for no document side');
    return this.submitFiles({ side, action: 'upload' }, [{ field: 'capture', bytes, filename, type }]);
  }

  /** The current step id shown (hidden field `step`). */
  step(): string | undefined {
    return this.last ? inputValue(this.last.text, 'step') : undefined;
  }
}
