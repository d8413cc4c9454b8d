/**
 * The flow editor's enhancements (the editor works without them, one server round trip per button):
 * the draft saved as you go, and each save's answer, the publication schema's problems, shown at their
 * inputs as you type; the JSON that would be published and the missing-verdict warning kept up to date;
 * steps reordered by drag and drop (which sends the same `move` the buttons send). Bundled by esbuild
 * (build-client.mjs) with the editor's model; the schema stays on the server, the one place it runs.
 */
import { configFromFields, sendsNoVerdict } from '../src/domain/flow-editor';

const AUTOSAVE_DELAY_MS = 500;

interface Problem {
  path: string;
  message: string;
}

function fieldsOf(form: HTMLFormElement): [string, string][] {
  const entries: [string, string][] = [];
  for (const [name, value] of new FormData(form)) {
    if (typeof value === 'string' && name !== '_csrf' && name !== 'op' && name !== 'then') entries.push([name, value]);
  }
  return entries;
}

function show(element: HTMLElement | null, visible: boolean): void {
  if (element) element.hidden = !visible;
}

/** Marks each input with its problem (or clears it) and rewrites the summary at the top. */
function renderProblems(form: HTMLFormElement, found: readonly Problem[]): void {
  const problems = new Map<string, string>();
  for (const { path, message } of found) if (!problems.has(path)) problems.set(path, message);
  for (const error of form.querySelectorAll<HTMLElement>('.field-error')) {
    const path = error.id.slice(2);
    const problem = problems.get(path);
    error.textContent = problem ?? '';
    show(error, problem !== undefined);
    const input = document.getElementById(`f-${path}`);
    if (input) {
      if (problem === undefined) input.removeAttribute('aria-invalid');
      else input.setAttribute('aria-invalid', 'true');
      input.closest('.field')?.classList.toggle('invalid', problem !== undefined);
    }
  }
  const summary = document.getElementById('problems');
  const list = document.getElementById('problems-list');
  const title = document.getElementById('problems-title');
  if (list) {
    list.replaceChildren(
      ...[...problems].map(([path, message]) => {
        const item = document.createElement('li');
        const link = document.createElement('a');
        link.href = `#f-${path}`;
        const code = document.createElement('code');
        code.textContent = path;
        link.append(code);
        item.append(link, `: ${message}`);
        return item;
      }),
    );
  }
  if (title && summary) {
    const count = problems.size;
    const template = summary.dataset[count === 1 ? 'one' : 'many'];
    if (template) title.textContent = template.replace('{n}', String(count));
  }
  show(summary, problems.size > 0);
  show(document.getElementById('no-problems'), problems.size === 0);
}

function start(form: HTMLFormElement): void {
  const status = document.getElementById('autosave');
  const preview = document.getElementById('json-preview');
  const csrf = form.querySelector<HTMLInputElement>('input[name="_csrf"]')?.value ?? '';
  const draftUrl = form.dataset.draftUrl ?? '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  let saving: Promise<void> = Promise.resolve();
  let dirty = false;

  const refreshPreview = () => {
    const config = configFromFields(fieldsOf(form));
    show(document.getElementById('no-verdict-warning'), sendsNoVerdict(config));
    const text = JSON.stringify(config, null, 2);
    if (preview) preview.textContent = text;
    return text;
  };

  const save = () => {
    if (!dirty) return;
    dirty = false;
    const text = refreshPreview();
    if (status) status.textContent = status.dataset.saving ?? '';
    // Saves run one after another, so an older text never lands after a newer one, nor its problems.
    saving = saving.then(async () => {
      try {
        const response = await fetch(draftUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-autosave': '1' },
          body: new URLSearchParams({ _csrf: csrf, config: text }),
          credentials: 'same-origin',
        });
        if (!response.ok) throw new Error(String(response.status));
        const answer = (await response.json()) as { problems?: Problem[] };
        if (!dirty) renderProblems(form, answer.problems ?? []);
        if (status) status.textContent = status.dataset.saved ?? '';
      } catch {
        if (status) status.textContent = status.dataset.failed ?? '';
      }
    });
  };

  const changed = () => {
    refreshPreview();
    dirty = true;
    clearTimeout(timer);
    timer = setTimeout(save, AUTOSAVE_DELAY_MS);
  };
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  // A button press reloads the page with the server's answer: what is typed goes with it, not twice.
  form.addEventListener('submit', () => {
    clearTimeout(timer);
    dirty = false;
  });

  enableDragAndDrop(form);
}

/** Steps dragged onto another step's place: the form is sent with the same `move` a server-side editor applies. */
function enableDragAndDrop(form: HTMLFormElement): void {
  const steps = [...form.querySelectorAll<HTMLElement>('#steps > li[data-draggable]')];
  if (steps.length < 2) return;
  show(document.getElementById('drag-hint'), true);
  let dragged: number | null = null;
  steps.forEach((step, index) => {
    // Dragged by its handle: a press inside the step's fieldset selects text or works its inputs.
    const handle = step.querySelector<HTMLElement>(':scope > .drag-handle');
    if (!handle) return;
    handle.hidden = false;
    handle.draggable = true;
    handle.addEventListener('dragstart', (event) => {
      dragged = index;
      event.dataTransfer?.setData('text/plain', step.dataset.item ?? '');
      step.classList.add('dragging');
    });
    step.addEventListener('dragend', () => step.classList.remove('dragging'));
    step.addEventListener('dragover', (event) => {
      if (dragged !== null && dragged !== index) event.preventDefault();
    });
    step.addEventListener('drop', (event) => {
      event.preventDefault();
      if (dragged === null || dragged === index) return;
      const op = document.createElement('input');
      op.type = 'hidden';
      op.name = 'op';
      op.value = `move@steps.${dragged}>${index}`;
      form.append(op);
      dragged = null;
      form.requestSubmit();
    });
  });
}

const form = document.getElementById('flow-editor');
if (form instanceof HTMLFormElement) start(form);
