import type { Messages } from '../i18n';
import { html, type SafeHtml } from '../view';

/**
 * The camera scripts' texts for a camera that cannot be used (`data-camera-*` attributes of the element
 * they enhance): why, as the browser said it, and `wayOn`, the page's own way on without it.
 */
export const cameraAccessData = (t: Messages, wayOn: string): SafeHtml =>
  html`data-camera-denied="${t.cameraAccess.denied}" data-camera-missing="${t.cameraAccess.missing}"
  data-camera-busy="${t.cameraAccess.busy}" data-camera-unsupported="${t.cameraAccess.unsupported}"
  data-camera-failed="${t.cameraAccess.failed}" data-camera-way-on="${wayOn}"`;
