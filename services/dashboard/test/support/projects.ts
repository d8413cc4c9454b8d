import type { TestBrowser } from './browser';

/** A new project of the browser's account, made through the projects page; its id. */
export async function newProject(browser: TestBrowser, name = 'Onboarding'): Promise<string> {
  const list = await browser.get('/projects');
  const nonce = /name="nonce" value="([^"]+)"/.exec(list.html)![1]!;
  const created = await browser.post('/projects', { name, nonce }, list);
  if (created.status !== 303) throw new Error(`creating a project answered ${created.status}`);
  return created.location!.split('/').at(-1)!;
}

/** The draft's text in a JSON view's textarea. */
export const draftOf = (html: string): string =>
  /<textarea[^>]*name="config"[^>]*>([\s\S]*?)<\/textarea>/
    .exec(html)![1]!
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
