/** The page's `role="alert"` region: typed, readable errors that never wipe what the user typed. */
import { errorCode } from 'vmem';
import { el } from './dom.js';

/** A button offered next to an error, e.g. "Re-encode now". */
export interface AlertAction {
  readonly label: string;
  run(): void;
}

/** Shows errors and notices in one live region. */
export interface Alerts {
  error(error: unknown, action?: AlertAction): void;
  notice(text: string): void;
  clear(): void;
}

/** Binds the alert region. Each message has a close button; new errors stack at the top. */
export function createAlerts(region: HTMLElement): Alerts {
  const show = (kind: 'error' | 'notice', code: string | undefined, text: string, action?: AlertAction): void => {
    const item = el('div', { class: `alert ${kind}`, 'data-code': code });
    if (code) item.append(el('strong', {}, `${code}: `));
    item.append(el('span', {}, text));
    if (action) {
      const button = el('button', { type: 'button' }, action.label);
      button.addEventListener('click', () => {
        item.remove();
        action.run();
      });
      item.append(' ', button);
    }
    const close = el('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss message' }, '×');
    close.addEventListener('click', () => item.remove());
    item.append(close);
    region.prepend(item);
  };
  return {
    error(error, action) {
      const code = errorCode(error);
      const message = error instanceof Error ? error.message : String(error);
      // Unexpected (non-vmem) errors still reach the console for debugging; vmem errors are expected states.
      if (!code) console.error(error);
      show('error', code ?? 'ERROR', message, action);
    },
    notice(text) {
      show('notice', undefined, text);
    },
    clear() {
      region.replaceChildren();
    },
  };
}
