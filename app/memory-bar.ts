/** Memory management: switch, create, delete, export, import, sample and dialogue import. */
import { VmemError } from 'vmem';
import { importMemory } from 'vmem/browser';
import type { AppState } from './app-state.js';
import type { Act } from './chat-pane.js';
import { parseDialogueFile } from './dialogue-import.js';
import { byId, download, el } from './dom.js';
import { loadSampleConversation } from './samples.js';

/** Name of the memory the sample conversation goes into. */
export const SAMPLE_MEMORY = 'sample';

/** What the memory bar needs from the page. */
export interface MemoryBarHooks {
  readonly act: Act;
  readonly notice: (text: string) => void;
  /** The open memory's rounds changed (sample or dialogue added). */
  readonly changed: () => void;
  /** Folder of the sample photos. */
  readonly samplesUrl: string;
}

/** Binds the memory bar. Returns `refresh` to re-list memories after a change. */
export function bindMemoryBar(app: AppState, hooks: MemoryBarHooks): { refresh(): Promise<void> } {
  const { act, notice, changed, samplesUrl } = hooks;
  const select = byId('memory-select', HTMLSelectElement);
  const newName = byId('new-memory-name', HTMLInputElement);
  const create = byId('create-memory', HTMLButtonElement);
  const remove = byId('delete-memory', HTMLButtonElement);
  const sample = byId('load-sample', HTMLButtonElement);
  const exportButton = byId('export-memory', HTMLButtonElement);
  const importFile = byId('import-memory', HTMLInputElement);
  const importDialogue = byId('import-dialogue', HTMLInputElement);

  const refresh = async () => {
    const names = await app.memoryNames();
    select.replaceChildren(...names.map((name) => el('option', { value: name }, name)));
    if (app.session) select.value = app.session.name;
  };
  /** A name not taken yet: `base`, `base-2`, `base-3`… */
  const freeName = async (base: string) => {
    const taken = new Set(await app.memoryNames());
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    return name;
  };

  select.addEventListener('change', () => void act(async () => void (await app.openMemory(select.value))));
  create.addEventListener('click', () =>
    void act(async () => {
      const name = newName.value.trim();
      if (!name) throw new VmemError('INVALID_INPUT', 'Type a name for the new memory first (for example a person or a chat).');
      await app.openMemory(name);
      newName.value = '';
      await refresh();
    }),
  );
  remove.addEventListener('click', () =>
    void act(async () => {
      const name = app.session?.name;
      if (!name || !confirm(`Delete memory "${name}" and everything in it? Export it first if you may want it back.`)) return;
      const others = (await app.memoryNames()).filter((other) => other !== name);
      await app.deleteCurrent(others[0] ?? 'default');
      await refresh();
    }),
  );
  sample.addEventListener('click', () =>
    void act(async () => {
      sample.disabled = true;
      try {
        if (app.session?.name !== SAMPLE_MEMORY) await app.openMemory(SAMPLE_MEMORY);
        await refresh();
        if (app.memory.size > 0) {
          notice(`The sample conversation is already in memory "${SAMPLE_MEMORY}" (${app.memory.size} rounds).`);
          return;
        }
        const rounds = await loadSampleConversation(samplesUrl);
        await app.memory.add(rounds);
        changed();
        notice(`Loaded the sample conversation: ${rounds.length} rounds. Try "what did my cat look like?"`);
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
      const name = await freeName(file.name.replace(/\.vmem$/i, '') || 'imported');
      await importMemory(name, file);
      await app.openMemory(name);
      await refresh();
    });
  });
  importDialogue.addEventListener('change', () => {
    const file = importDialogue.files?.[0];
    importDialogue.value = '';
    if (!file) return;
    void act(async () => {
      let json: unknown;
      try {
        json = JSON.parse(await file.text());
      } catch (error) {
        throw new VmemError('INVALID_INPUT', `"${file.name}" is not valid JSON; choose a Mem-Gallery or LoCoMo file. Nothing was imported.`, { cause: error });
      }
      const dialogue = parseDialogueFile(json, file.name);
      await app.openMemory(await freeName(dialogue.title));
      await refresh();
      await app.memory.add(dialogue.rounds);
      changed();
      notice(`Imported ${dialogue.rounds.length} rounds from ${file.name} into memory "${app.session?.name}".${dialogue.note ? ` ${dialogue.note}` : ''}`);
    });
  });
  return { refresh };
}
