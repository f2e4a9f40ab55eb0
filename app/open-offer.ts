/**
 * Opening a memory the way a person expects: one built by other models is offered a re-encode with
 * this device's models (with progress) instead of a dead end, one locked with a passphrase asks for
 * it, and the memory open before stays open and usable meanwhile.
 */
import { errorCode, VmemError } from 'vmem';
import type { Act, Alerts } from './alerts.js';
import type { AppState } from './app-state.js';
import { plural } from './task-progress.js';

/** Where an offer is shown, and what runs its button. */
export interface OfferTarget {
  readonly alerts: Alerts;
  readonly act: Act;
  /** Called once the memory is open, by either path. */
  readonly opened?: () => void;
  /** Memory `name` is locked with a passphrase and was opened without one: ask for it. */
  readonly locked?: (name: string) => void;
}

/** The label of the offer's button. */
export const REENCODE_LABEL = "Re-encode with this device's models";

/**
 * Opens `name`; resolves true when it is open. A memory built by other encoders resolves false after
 * showing the re-encode offer in `target.alerts`, a locked one after `target.locked`; any other failure rejects.
 */
export async function openOrOffer(app: AppState, name: string, target: OfferTarget): Promise<boolean> {
  try {
    await app.openMemory(name);
    target.opened?.();
    return true;
  } catch (error) {
    if (errorCode(error) === 'PASSPHRASE_REQUIRED' && target.locked) {
      target.locked(name);
      return false;
    }
    if (errorCode(error) !== 'ENCODER_MISMATCH') throw error;
    const still = app.session ? ` Memory "${app.session.name}" is still open.` : '';
    const offer = new VmemError(
      'ENCODER_MISMATCH',
      `Memory "${name}" was built with other models than the ones this device runs, so it cannot be searched as it is. Re-encode it to use it here (the rounds and pictures are kept; only their vectors are made again).${still}`,
      { cause: error },
    );
    target.alerts.error(offer, {
      label: REENCODE_LABEL,
      run: () =>
        void target.act(async () => {
          const session = await app.openMemory(name, true);
          target.opened?.();
          target.alerts.notice(`Re-encoded memory "${name}" with this device's models: ${plural(session.memory.size, 'round')}, ready to search.`);
        }),
    });
    return false;
  }
}
