/**
 * Memory management: switch, create, delete, export, import, sample and dialogue import.
 * A dialogue import goes into a memory named after the dialogue, in batches, and is noted as
 * pending until its last batch is stored: if it is interrupted (tab closed, a failure), opening
 * that memory says so and offers to resume it (nothing stored is encoded again) or to delete it.
 */
import { VmemError, type RoundInput } from 'vmem';
import { deleteMemory, importMemory } from 'vmem/browser';
import type { Act, Alerts } from './alerts.js';
import type { AppState } from './app-state.js';
import { parseDialogueFile, type ImportedDialogue } from './dialogue-import.js';
import { byId, download, el } from './dom.js';
import { clearPendingImport, notePendingImport, pendingImports, type PendingImport } from './imports.js';
import { memoryNameFrom } from './memory-names.js';
import { openOrOffer } from './open-offer.js';
import { loadSampleConversation } from './samples.js';
import { plural } from './task-progress.js';

/** Name of the memory the sample conversation goes into. */
export const SAMPLE_MEMORY = 'sample';

/** What the memory bar needs from the page. */
export interface MemoryBarHooks {
  /** Reports failures next to the memory bar. */
  readonly act: Act;
  /** The memory bar's own message region. */
  readonly alerts: Alerts;
  /** The open memory's rounds changed (sample or dialogue added). */
  readonly changed: () => void;
  /** Folder of the sample photos. */
  readonly samplesUrl: string;
  /** A locked memory was asked for (see `OfferTarget.locked`). */
  readonly locked: (name: string) => void;
  /** The passphrase a new memory is locked with, when one was typed. */
  readonly passphraseForNew: () => string | undefined;
}

/** Binds the memory bar. Returns `refresh`, to re-list memories after a change. */
export function bindMemoryBar(app: AppState, hooks: MemoryBarHooks): { refresh(): Promise<void> } {
  const { act, alerts, changed, samplesUrl, locked, passphraseForNew } = hooks;
  const select = byId('memory-select', HTMLSelectElement);
  const newName = byId('new-memory-name', HTMLInputElement);
  const create = byId('create-memory', HTMLButtonElement);
  const remove = byId('delete-memory', HTMLButtonElement);
  const sample = byId('load-sample', HTMLButtonElement);
  const exportButton = byId('export-memory', HTMLButtonElement);
  const importFile = byId('import-memory', HTMLInputElement);
  const importDialogue = byId('import-dialogue', HTMLInputElement);
  /** The unfinished import the next chosen dialogue file resumes. */
  let resuming: PendingImport | undefined;
  /** Memory an import is running into now (its pending note is expected, not news). */
  let importingInto: string | undefined;
  /** Memories whose unfinished import was already pointed out since they were opened. */
  const offered = new Set<string>();

  const refresh = async () => {
    const names = await app.memoryNames();
    const pending = await pendingImports();
    select.replaceChildren(...names.map((name) => el('option', { value: name }, pending[name] ? `${name} (import not finished)` : name)));
    const open = app.session?.name;
    if (open === undefined) return;
    select.value = open;
    const unfinished = pending[open];
    if (unfinished && importingInto !== open && !offered.has(open)) offerResume(unfinished);
  };

  const offerResume = (pending: PendingImport) => {
    offered.add(pending.memory);
    // Counted in the memory itself: the page may have died at any point of a batch.
    const stored = pending.roundIds.filter((id) => app.memory.has(id)).length;
    if (stored >= pending.total) {
      void clearPendingImport(pending.memory);
      alerts.notice(`The import of "${pending.fileName}" into memory "${pending.memory}" finished before the page closed: all ${plural(pending.total, 'round')} are stored.`);
      return;
    }
    alerts.notice(
      `The import of "${pending.fileName}" into memory "${pending.memory}" did not finish: ${stored} of ${plural(pending.total, 'round')} are stored.`,
      {
        label: `Resume (choose ${pending.fileName} again)`,
        run: () => {
          resuming = pending;
          importDialogue.click();
        },
      },
      {
        label: `Delete memory "${pending.memory}"`,
        run: () => void act(() => deleteMemoryNamed(pending.memory)),
      },
    );
  };

  const deleteMemoryNamed = async (name: string) => {
    const others = (await app.memoryNames()).filter((other) => other !== name);
    if (app.session?.name === name) await app.deleteCurrent(others[0] ?? 'default');
    else await deleteMemory(name);
    await clearPendingImport(name);
    offered.delete(name);
    await refresh();
  };

  /** A name not taken yet: `base`, `base-2`, `base-3`… */
  const freeName = async (base: string) => {
    const taken = new Set(await app.memoryNames());
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    return name;
  };

  /** Stores the dialogue's rounds into `memory`, noting the import as pending until it is complete. */
  const runImport = async (dialogue: ImportedDialogue, fileName: string, memory: string) => {
    if (app.session?.name !== memory) await app.openMemory(memory);
    importingInto = memory;
    const roundIds = dialogue.rounds.flatMap((round) => (round.id === undefined ? [] : [round.id]));
    try {
      await notePendingImport({ memory, fileName, title: dialogue.title, total: dialogue.rounds.length, roundIds });
      await refresh();
      const outcome = await app.importRounds(dialogue.rounds, `Importing ${fileName} into "${memory}"`, () => changed());
      await clearPendingImport(memory);
      offered.delete(memory);
      changed();
      await refresh();
      const resumed = outcome.skipped > 0 ? ` (${outcome.skipped} were already stored and were kept)` : '';
      alerts.notice(`Imported ${plural(dialogue.rounds.length, 'round')} from ${fileName} into memory "${memory}"${resumed}.${dialogue.note ? ` ${dialogue.note}` : ''}`);
    } finally {
      importingInto = undefined;
      await refresh();
    }
  };

  const offerTarget = { alerts, act, opened: () => void refresh(), locked };
  select.addEventListener('change', () =>
    void act(async () => {
      // A refused switch leaves the open memory selected, not the one that could not open.
      if (!(await openOrOffer(app, select.value, offerTarget))) await refresh();
    }),
  );
  create.addEventListener('click', () =>
    void act(async () => {
      const name = newName.value.trim();
      if (!name) throw new VmemError('INVALID_INPUT', 'Type a name for the new memory first (for example a person or a chat).');
      await app.openMemory(name, false, passphraseForNew());
      newName.value = '';
      await refresh();
    }),
  );
  remove.addEventListener('click', () =>
    void act(async () => {
      const name = app.session?.name;
      if (!name || !confirm(`Delete memory "${name}" and everything in it? Export it first if you may want it back.`)) return;
      await deleteMemoryNamed(name);
    }),
  );
  sample.addEventListener('click', () =>
    void act(async () => {
      sample.disabled = true;
      try {
        if (app.session?.name !== SAMPLE_MEMORY) await app.openMemory(SAMPLE_MEMORY);
        await refresh();
        let rounds: readonly RoundInput[] = [];
        // Shown from the click (the photos are fetched first); searchable as soon as stored, while the
        // offline describer reads the photos afterwards, with its own progress.
        const added = await app.addRounds(
          async () => {
            rounds = await loadSampleConversation(samplesUrl);
            return rounds.filter((round) => !app.memory.has(round.id!));
          },
          'Loading the sample conversation',
          { describe: 'background' },
        );
        if (added.length === 0) {
          alerts.notice(`The sample conversation is already in memory "${SAMPLE_MEMORY}" (${plural(app.memory.size, 'round')}).`);
          return;
        }
        changed();
        const sessions = new Set(rounds.map((round) => round.sessionId)).size;
        alerts.notice(`Loaded the sample conversation: ${plural(rounds.length, 'round')} over ${plural(sessions, 'chat session')}. Try "what did my cat look like?"`);
      } finally {
        sample.disabled = false;
      }
    }),
  );
  exportButton.addEventListener('click', () =>
    void act(async () => {
      const session = app.session;
      if (!session) throw new VmemError('CLOSED', 'No memory is open to export.');
      download(await session.memory.export(), `${session.name}.vmem`);
    }),
  );
  importFile.addEventListener('change', () => {
    const file = importFile.files?.[0];
    importFile.value = '';
    if (!file) return;
    void act(async () => {
      const base = memoryNameFrom(file.name.replace(/\.vmem$/i, '')) || 'imported';
      const name = await freeName(base);
      await importMemory(name, file);
      // Listed at once, even when it cannot open here as it is (other encoders).
      await refresh();
      if (!(await openOrOffer(app, name, offerTarget))) return;
      changed();
      const renamed = name === base ? '' : ` A memory named "${base}" already exists, so this one is "${name}".`;
      alerts.notice(`Imported ${file.name} as memory "${name}": ${plural(app.memory.size, 'round')}.${renamed}`);
    });
  });
  importDialogue.addEventListener('change', () => {
    const file = importDialogue.files?.[0];
    importDialogue.value = '';
    const pending = resuming;
    resuming = undefined;
    if (!file) return;
    void act(async () => {
      let json: unknown;
      try {
        json = JSON.parse(await file.text());
      } catch (error) {
        throw new VmemError('INVALID_INPUT', `"${file.name}" is not valid JSON; choose a Mem-Gallery or LoCoMo file. Nothing was imported.`, { cause: error });
      }
      // A browser file name is a name, not a path: a "/" in it must not cut it short.
      const dialogue = parseDialogueFile(json, file.name.replace(/[\\/]/g, '_'));
      if (pending && dialogue.title !== pending.title) {
        throw new VmemError('INVALID_INPUT', `"${file.name}" holds dialogue "${dialogue.title}", not "${pending.title}" that memory "${pending.memory}" was importing. Choose ${pending.fileName}; nothing was imported.`);
      }
      await runImport(dialogue, file.name, pending?.memory ?? (await freeName(memoryNameFrom(dialogue.title) || 'imported')));
    });
  });
  return { refresh };
}
