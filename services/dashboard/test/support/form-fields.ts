/**
 * What a browser without scripts sends for a form of a page: each named input's value (a checkbox only
 * when ticked), each select's chosen option, each textarea's text; buttons only when pressed (the caller
 * adds them). Enough HTML parsing for the dashboard's own server-rendered markup.
 */
export function formFieldsOf(html: string, formId: string): [string, string][] {
  const start = html.indexOf(`id="${formId}"`);
  if (start < 0) throw new Error(`no form #${formId} on this page`);
  const body = html.slice(start, html.indexOf('</form>', start));
  const fields: [string, string][] = [];
  const tag = /<(input|select|textarea)\b([^>]*)>/g;
  for (let match = tag.exec(body); match; match = tag.exec(body)) {
    const attributes = attributesOf(match[2]!);
    const name = attributes.get('name');
    if (name === undefined || attributes.has('disabled')) continue;
    if (match[1] === 'input') {
      const type = attributes.get('type') ?? 'text';
      if (type === 'checkbox' && !attributes.has('checked')) continue;
      fields.push([name, attributes.get('value') ?? (type === 'checkbox' ? 'on' : '')]);
    } else if (match[1] === 'select') {
      const end = body.indexOf('</select>', match.index);
      const options = [...body.slice(match.index, end).matchAll(/<option\b([^>]*)>/g)].map((option) => attributesOf(option[1]!));
      const chosen = options.find((option) => option.has('selected')) ?? options[0];
      fields.push([name, chosen?.get('value') ?? '']);
    } else {
      const end = body.indexOf('</textarea>', match.index);
      fields.push([name, decode(body.slice(match.index + match[0].length, end))]);
    }
  }
  return fields;
}

function attributesOf(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, value] of text.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?/g)) {
    attributes.set(name!, decode(value ?? ''));
  }
  return attributes;
}

function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
