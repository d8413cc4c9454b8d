import type { TestBrowser } from './browser';

/** A form's one-effect nonce on a page (the first, when there are several forms). */
export const nonceOf = (html: string): string => /name="nonce" value="([^"]+)"/.exec(html)![1]!;

/** A new project of the browser's account, made through the projects page; its id. */
export async function newProject(browser: TestBrowser, name = 'Onboarding'): Promise<string> {
  const list = await browser.get('/projects');
  const created = await browser.post('/projects', { name, nonce: nonceOf(list.html) }, list);
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
