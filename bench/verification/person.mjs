// A scripted person of bench/verification: a cookie jar and a client address of its own, pages and forms as
// the flow-runner serves them (the same protocol as services/flow-runner/test/person.ts), and the waiting
// pages handled as their script (assets/progress.js) handles them: the flow's version asked every
// `data-wait-every-ms`, the page reloaded as soon as it changed.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { FormData, request } = require(require.resolve('undici', { paths: [path.join(ROOT, 'packages/testkit')] }));

const inputValue = (html, name) => new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1];
export const statusOf = (html) => /data-page="([a-z_]+)"/.exec(html)?.[1] ?? null;
const h1Of = (html) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '';
const alertOf = (html) =>
  /role="alert"[^>]*>([\s\S]{0,300}?)<\//
    .exec(html)?.[1]
    ?.replace(/<[^>]+>/g, ' ')
    .trim() ?? '';

export class Person {
  /** `address`: the client address it comes from (X-Forwarded-For; the stack trusts 127.0.0.1 as its proxy). */
  constructor(origin, dispatcher, address) {
    this.origin = origin;
    this.dispatcher = dispatcher;
    this.address = address;
    this.cookies = new Map();
    this.page = '';
  }

  /** What the page says, for a failure's message. */
  describe() {
    return `"${h1Of(this.page)}"${alertOf(this.page) ? ` (${alertOf(this.page)})` : ''}`;
  }

  async fetch(method, url, body) {
    const headers = {
      'accept-language': 'es-AR,es;q=0.9',
      'user-agent': 'Mozilla/5.0 (bench person)',
      'x-forwarded-for': this.address,
    };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body !== undefined && !(body instanceof FormData)) {
      body = new URLSearchParams(body).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await request(url.startsWith('http') ? url : this.origin + url, {
      method,
      headers,
      body,
      dispatcher: this.dispatcher,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await response.body.text();
    for (const line of [response.headers['set-cookie'] ?? []].flat()) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      if (i > 0) this.cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
    return { status: response.statusCode, location: response.headers.location, text };
  }

  async get(url) {
    const res = await this.fetch('GET', url);
    if (res.status === 303 && res.location) return this.get(res.location);
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.text.slice(0, 200)}`);
    this.page = res.text;
    this.url = url;
    return res;
  }

  /** The page's form posted (its `_csrf` and `step` with `fields`); `onAnswer` sees the POST's own answer, before the redirect. */
  async post(fields, { files = [], onAnswer } = {}) {
    const action = /<form method="post" action="([^"]+)"/.exec(this.page)?.[1];
    const csrf = inputValue(this.page, '_csrf');
    const step = inputValue(this.page, 'step');
    if (!action || !csrf || !step) throw new Error(`the page has no flow form: ${this.describe()}`);
    let body = { _csrf: csrf, step, ...fields };
    if (files.length > 0) {
      const form = new FormData();
      for (const [name, value] of Object.entries(body)) form.set(name, value);
      for (const file of files) form.append(file.field, new Blob([file.bytes], { type: 'image/jpeg' }), file.filename);
      body = form;
    }
    const res = await this.fetch('POST', action, body);
    onAnswer?.(res);
    if (res.status === 303 && res.location) return this.get(res.location);
    if (res.status !== 200) throw new Error(`POST ${fields.action ?? ''}: ${res.status} ${res.text.slice(0, 200)}`);
    this.page = res.text;
    return res;
  }

  /** The side the document page asks for (its hidden `side`), or undefined. */
  side() {
    return inputValue(this.page, 'side');
  }

  /** On a waiting page: asks the flow's version as progress.js does, and reloads the page once it changed. */
  async waitWhileWaiting(timeoutMs = 180_000) {
    const deadline = performance.now() + timeoutMs;
    // Reloaded with a GET of its own address, never resubmitted (progress.js).
    const here = this.url;
    while (/data-wait-url="([^"]+)"/.test(this.page)) {
      const url = /data-wait-url="([^"]+)"/.exec(this.page)[1].replace(/&amp;/g, '&');
      const version = Number(/data-wait-version="(\d+)"/.exec(this.page)?.[1]);
      const every = Math.max(250, Number(/data-wait-every-ms="(\d+)"/.exec(this.page)?.[1]) || 500);
      for (;;) {
        if (performance.now() > deadline) throw new Error(`still waiting after ${timeoutMs / 1000} s: ${this.describe()}`);
        await new Promise((resolve) => setTimeout(resolve, every));
        const res = await this.fetch('GET', url);
        if (res.status !== 200) throw new Error(`version: ${res.status}`);
        if (JSON.parse(res.text).version !== version) break;
      }
      await this.get(here);
    }
  }
}
