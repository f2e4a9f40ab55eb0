/**
 * Alert regions: each sits next to the controls it reports on, so a message appears where the user
 * just clicked (on a phone too). Errors are `role="alert"` (announced at once), notices
 * `role="status"`. A message repeated while it is shown is counted, not stacked, and a region keeps
 * only its newest few.
 */
import { errorCode } from 'vmem';
import { el } from './dom.js';

/** A button offered with a message, e.g. "Re-encode now". */
export interface AlertAction {
  readonly label: string;
  run(): void;
}

/** Shows errors and notices in one region. */
export interface Alerts {
  /** Shows the error with its code; `actions` become buttons that also dismiss it. */
  error(error: unknown, ...actions: AlertAction[]): void;
  notice(text: string, ...actions: AlertAction[]): void;
  clear(): void;
  /** Removes the errors that offer nothing to do: a later success made them stale. */
  clearStaleErrors(): void;
}

/**
 * Runs an action and reports its failure next to the control that started it. A success clears the
 * errors it made stale, unless `keepErrors` (one of several steps of one gesture, such as attaching
 * several files, must not hide the error of another).
 */
export type Act = (action: () => Promise<void>, options?: { readonly keepErrors?: boolean }) => Promise<void>;

/** Messages a region shows at once; older ones are dropped (they said something newer ones replace). */
export const MAX_ALERTS_SHOWN = 3;

/** Binds a region. New messages go on top. */
export function createAlerts(region: HTMLElement): Alerts {
  const show = (kind: 'error' | 'notice', code: string | undefined, text: string, actions: readonly AlertAction[]): void => {
    const key = `${kind}\u0000${code ?? ''}\u0000${text}`;
    const same = [...region.querySelectorAll<HTMLElement>(':scope > .alert')].find((item) => item.dataset.key === key);
    if (same) {
      const count = Number(same.dataset.count ?? '1') + 1;
      same.dataset.count = String(count);
      same.querySelector('.repeat')!.textContent = ` (×${count})`;
      region.prepend(same);
      reveal(same);
      return;
    }
    const item = el('div', { class: `alert ${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-code': code, 'data-key': key });
    const body = el('p', { class: 'alert-text' });
    if (code) body.append(el('code', { class: 'alert-code' }, code), ' ');
    body.append(el('span', {}, text), el('span', { class: 'repeat muted' }));
    item.append(body);
    if (actions.length > 0) {
      const row = el('div', { class: 'alert-actions' });
      for (const action of actions) {
        const button = el('button', { type: 'button' }, action.label);
        button.addEventListener('click', () => {
          item.remove();
          action.run();
        });
        row.append(button);
      }
      item.append(row);
    }
    const close = el('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss message' }, '×');
    close.addEventListener('click', () => item.remove());
    item.append(close);
    region.prepend(item);
    for (const old of [...region.querySelectorAll(':scope > .alert')].slice(MAX_ALERTS_SHOWN)) old.remove();
    reveal(item);
  };
  return {
    error(error, ...actions) {
      const code = errorCode(error);
      const message = error instanceof Error ? error.message : String(error);
      // Unexpected (non-vmem) errors still reach the console for debugging; vmem errors are expected states.
      if (!code) console.error(error);
      show('error', code ?? 'ERROR', message, actions);
    },
    notice(text, ...actions) {
      show('notice', undefined, text, actions);
    },
    clear() {
      region.replaceChildren();
    },
    clearStaleErrors() {
      for (const item of region.querySelectorAll(':scope > .alert.error')) if (!item.querySelector('.alert-actions')) item.remove();
    },
  };
}

/** An `Act` that reports failures into `alerts`, and clears the errors a success made stale. */
export function actReportingTo(alerts: Alerts): Act {
  return async (action, options = {}) => {
    try {
      await action();
    } catch (error) {
      alerts.error(error);
      return;
    }
    if (!options.keepErrors) alerts.clearStaleErrors();
  };
}

/** Scrolls a new message into view only when it is off screen, without moving focus. */
function reveal(item: HTMLElement): void {
  const box = item.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) item.scrollIntoView({ block: 'nearest', behavior: 'instant' });
}
