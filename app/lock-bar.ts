/**
 * The passphrase lock of the open memory: lock it, unlock a locked one, change its passphrase.
 * The passphrase is read from its field when a button is pressed, and the field is emptied right
 * after; the app keeps it only in this tab's memory while the memory is open (to reopen it after new
 * settings), and never stores it.
 */
import { VmemError } from 'vmem';
import type { Act, Alerts } from './alerts.js';
import type { AppState } from './app-state.js';
import { byId } from './dom.js';

/** What the lock bar needs from the page. */
export interface LockBarHooks {
  readonly act: Act;
  readonly alerts: Alerts;
  /** A memory was opened or locked here. */
  readonly opened: () => void;
}

/** Binds the lock bar. `locked(name)` asks for the passphrase of memory `name`, which refused to open without one. */
export function bindLockBar(app: AppState, hooks: LockBarHooks): { locked(name: string): void; showStatus(): void; passphraseForNew(): string | undefined } {
  const { act, alerts, opened } = hooks;
  const passphrase = byId('memory-passphrase', HTMLInputElement);
  const nextPassphrase = byId('new-passphrase', HTMLInputElement);
  const unlock = byId('unlock-memory', HTMLButtonElement);
  const lock = byId('lock-memory', HTMLButtonElement);
  const change = byId('change-passphrase', HTMLButtonElement);
  const status = byId('lock-status', HTMLElement);
  /** The memory that asked for its passphrase last, until it is unlocked. */
  let waiting: string | undefined;

  const showStatus = () => {
    const session = app.session;
    unlock.hidden = waiting === undefined;
    unlock.textContent = waiting === undefined ? 'Unlock' : `Unlock "${waiting}"`;
    const locked = session?.passphrase !== undefined;
    lock.hidden = !session || locked;
    change.hidden = !locked;
    nextPassphrase.closest('.field')!.toggleAttribute('hidden', !locked);
    status.textContent = !session
      ? ''
      : locked
        ? `Memory "${session.name}" is locked with a passphrase: its stored bytes are encrypted, and it is unlocked in this tab only.`
        : `Memory "${session.name}" is not locked: anyone using this browser profile can read it.`;
  };

  /** The typed passphrase, taken out of its field. */
  const take = (field: HTMLInputElement, what: string): string => {
    const value = field.value;
    field.value = '';
    if (value === '') {
      field.focus();
      throw new VmemError('INVALID_INPUT', `Type ${what} first.`);
    }
    return value;
  };

  unlock.addEventListener('click', () =>
    void act(async () => {
      const name = waiting;
      if (name === undefined) return;
      await app.openMemory(name, false, take(passphrase, `the passphrase of memory "${name}"`));
      waiting = undefined;
      opened();
      alerts.notice(`Unlocked memory "${name}".`);
    }),
  );
  lock.addEventListener('click', () =>
    void act(async () => {
      const session = await app.lockCurrent(take(passphrase, 'a passphrase to lock this memory with'));
      opened();
      alerts.notice(`Memory "${session.name}" is locked with a passphrase. It is not stored anywhere: a lost passphrase means a lost memory.`);
    }),
  );
  change.addEventListener('click', () =>
    void act(async () => {
      const current = take(passphrase, 'the current passphrase');
      await app.changePassphrase(current, take(nextPassphrase, 'the new passphrase'));
      showStatus();
      alerts.notice(`Changed the passphrase of memory "${app.session?.name}"; the old one no longer opens it.`);
    }),
  );
  passphrase.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    (waiting !== undefined ? unlock : app.session?.passphrase !== undefined ? change : lock).click();
  });

  return {
    locked(name) {
      waiting = name;
      showStatus();
      const still = app.session ? ` Memory "${app.session.name}" is still open.` : '';
      alerts.notice(`Memory "${name}" is locked with a passphrase: type it under "Passphrase" and press Unlock.${still}`);
      passphrase.focus();
    },
    showStatus() {
      if (waiting === app.session?.name) waiting = undefined;
      showStatus();
    },
    /** A passphrase typed for a memory about to be created (which it then locks), taken out of its field. */
    passphraseForNew() {
      const value = passphrase.value;
      passphrase.value = '';
      return value === '' ? undefined : value;
    },
  };
}
