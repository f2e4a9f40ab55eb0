/**
 * The chat pane: history with "Forget", and the compose form (user text, optional assistant text,
 * images by picker, paste or drag-and-drop). Nothing typed is cleared until the round is stored.
 *
 * Each draft has a round id of its own, made when the draft starts: "Add" is disabled while it is
 * stored, and if it is submitted again anyway (a second tab, a retry after a lost reply) the
 * memory refuses it as a duplicate, so one draft is one round.
 */
import { VmemError, errorCode, type StoredRound } from 'vmem';
import type { Act } from './alerts.js';
import type { AppState } from './app-state.js';
import { byId, el } from './dom.js';
import { clearUnsentDraft, saveUnsentDraft, unsentDraft } from './drafts.js';
import { readImageFile, type CheckedImage } from './files.js';
import { renderRound } from './round-view.js';
import { plural } from './task-progress.js';
import { assertWithinLimit, refuseLongPastes } from './text-limit.js';

/** History rows rendered at once; older rounds stay stored and searchable. */
const HISTORY_SHOWN = 50;

/** The bound pane. */
export interface ChatPane {
  /** Re-renders the history (the memory changed). */
  /** Shows the last rounds (read from storage); resolves once they are on screen. */
  renderHistory(): Promise<void>;
  /** Puts back a message whose add the page did not live to finish; returns what to tell the user, if anything. */
  restoreUnsent(): string | undefined;
}

/**
 * Binds the chat pane to the page; `act` reports errors next to the compose form, `onForgotten`
 * hears that a round was forgotten (the history is re-rendered by it, with the badge and results).
 */
export function bindChatPane(app: AppState, act: Act, onForgotten: () => void): ChatPane {
  const history = byId('history', HTMLOListElement);
  const form = byId('compose', HTMLFormElement);
  const userText = byId('user-text', HTMLTextAreaElement);
  const assistantText = byId('assistant-text', HTMLTextAreaElement);
  const picker = byId('attach-images', HTMLInputElement);
  const list = byId('attachments', HTMLUListElement);
  const dropZone = byId('drop-zone', HTMLDivElement);
  const send = byId('send', HTMLButtonElement);
  const replyButton = byId('send-and-reply', HTMLButtonElement);
  const status = byId('compose-status', HTMLParagraphElement);
  let attachments: { image: CheckedImage; url: string }[] = [];
  let draftId = newDraftId();

  const renderAttachments = () => {
    list.replaceChildren(
      ...attachments.map((attachment, index) => {
        const remove = el('button', { type: 'button', class: 'link', 'aria-label': `Remove ${attachment.image.fileName}` }, 'Remove');
        remove.addEventListener('click', () => {
          URL.revokeObjectURL(attachment.url);
          attachments = attachments.filter((_, i) => i !== index);
          renderAttachments();
        });
        return el('li', {}, el('img', { src: attachment.url, alt: attachment.image.fileName }), el('span', { class: 'file-name', title: attachment.image.fileName }, attachment.image.fileName), remove);
      }),
    );
  };

  /** Checks each file on its own: a bad one is reported, the good ones are still attached. */
  const attachFiles = async (files: readonly File[]) => {
    for (const file of files) {
      await act(
        async () => {
          const image = await readImageFile(file);
          attachments.push({ image, url: URL.createObjectURL(new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mimeType })) });
          renderAttachments();
        },
        { keepErrors: true },
      );
    }
  };

  picker.addEventListener('change', () => {
    const files = [...(picker.files ?? [])];
    picker.value = '';
    void attachFiles(files);
  });
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('dragging');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('dragging');
    void attachFiles([...(event.dataTransfer?.files ?? [])]);
  });
  for (const area of [userText, assistantText]) {
    area.addEventListener('paste', (event) => {
      const files = [...(event.clipboardData?.files ?? [])];
      if (files.length === 0) return;
      event.preventDefault();
      void attachFiles(files);
    });
    refuseLongPastes(area, act);
  }

  const clearDraft = () => {
    userText.value = '';
    assistantText.value = '';
    for (const attachment of attachments) URL.revokeObjectURL(attachment.url);
    attachments = [];
    renderAttachments();
    draftId = newDraftId();
  };

  /** Shows the stored round in the history and says so next to "Add". */
  const confirmStored = async (round: StoredRound, note: string) => {
    await renderHistory();
    const view = history.querySelector<HTMLElement>(`[data-round-id="${CSS.escape(round.id)}"]`);
    const time = new Date(round.timestamp).toLocaleTimeString(undefined, { timeStyle: 'short' });
    status.textContent = `${note} at ${time}; the memory holds ${plural(app.memory.size, 'round')}.`;
    // The round first, then the confirmation under the form: on a phone both end up on screen.
    view?.classList.add('just-added');
    view?.scrollIntoView({ block: 'nearest', behavior: 'instant' });
    status.scrollIntoView({ block: 'nearest', behavior: 'instant' });
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (send.disabled) return;
    // Disabled before anything is awaited, so a second click of the same draft does nothing.
    send.disabled = true;
    form.setAttribute('aria-busy', 'true');
    status.textContent = '';
    void act(async () => {
      try {
        const user = userText.value;
        const assistant = assistantText.value;
        assertWithinLimit('Your message', user);
        assertWithinLimit('The assistant text', assistant);
        const images = attachments.map(({ image }) => ({ bytes: image.bytes, mimeType: image.mimeType }));
        if (!user.trim() && !assistant.trim() && images.length === 0) {
          throw new VmemError('EMPTY_ROUND', 'Type a message or attach an image first; there is nothing to store yet.');
        }
        const id = draftId;
        const what = images.length > 0 ? `your message with ${plural(images.length, 'photo')}` : 'your message';
        let stored: StoredRound;
        saveUnsentDraft({ memory: app.session?.name ?? '', roundId: id, user, assistant, pictures: images.length, at: Date.now() });
        window.addEventListener('beforeunload', warnBeforeLeaving);
        try {
          [stored] = (await app.addRounds([{ id, user: { text: user, images }, assistant: { text: assistant } }], `Storing ${what}`)) as [StoredRound];
        } catch (error) {
          const already = errorCode(error) === 'DUPLICATE_ROUND' ? await app.memory.get(id) : undefined;
          if (!already) throw error;
          clearDraft();
          await confirmStored(already, 'This message was already stored (it was sent twice); kept once,');
          return;
        }
        clearDraft();
        await confirmStored(stored, `Stored ${what}`);
      } finally {
        window.removeEventListener('beforeunload', warnBeforeLeaving);
        // Stored, or refused with an error shown while the text is still in the box: nothing to restore.
        clearUnsentDraft();
        send.disabled = false;
        form.removeAttribute('aria-busy');
      }
    });
  });

  /** After an add the tab did not live to finish: the message goes back in the box, saying so. */
  const restoreUnsent = (): string | undefined => {
    const draft = unsentDraft();
    const session = app.session;
    if (!draft || !session || draft.memory !== session.name) return undefined;
    clearUnsentDraft();
    if (session.memory.has(draft.roundId)) return undefined;
    if (!userText.value && !assistantText.value) {
      userText.value = draft.user;
      assistantText.value = draft.assistant;
      draftId = draft.roundId;
    }
    const when = new Date(draft.at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    const pictures = draft.pictures > 0 ? ` Its ${plural(draft.pictures, 'picture')} could not be kept: attach ${draft.pictures === 1 ? 'it' : 'them'} again.` : '';
    return `Your last message (${when}) was not stored: the page closed while it was being added. Its text is back in the box; press "Add to memory" to store it.${pictures}`;
  };

  replyButton.addEventListener('click', () => {
    void act(async () => {
      const question = userText.value.trim();
      if (!question) throw new VmemError('EMPTY_QUERY', 'Type your message first; the LLM replies to it using the memory.');
      replyButton.disabled = true;
      try {
        const result = await app.answer(question);
        assistantText.value = result.answer;
      } finally {
        replyButton.disabled = false;
      }
    });
  });

  // Rounds are read from storage: a render that a newer one overtook while reading is dropped, and
  // waits for that newer one, so whoever awaits a render finds the rounds on screen.
  let renders = 0;
  let latest: Promise<void> = Promise.resolve();
  const renderHistory = () => (latest = showHistory(++renders));
  const showHistory = async (render: number): Promise<void> => {
    const session = app.session;
    if (!session) return;
    const total = session.memory.size;
    const shown = await session.memory.rounds({ from: Math.max(0, total - HISTORY_SHOWN) });
    if (render !== renders) return latest;
    const items = shown.map((round) =>
      el(
        'li',
        {},
        renderRound(round, {
          images: app.images,
          onForget: (roundId) =>
            void act(async () => {
              const when = new Date(round.timestamp).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
              if (!confirm(`Forget the round from ${when}? It is removed from this memory for good, with its pictures.`)) return;
              await app.memory.forget(roundId);
              onForgotten();
              status.textContent = `Forgot the round from ${when}; the memory holds ${plural(app.memory.size, 'round')}.`;
            }),
        }),
      ),
    );
    if (total > shown.length) items.unshift(el('li', { class: 'muted' }, `Showing the last ${shown.length} of ${plural(total, 'round')}; all of them are searchable.`));
    if (total === 0) items.push(el('li', { class: 'muted' }, 'No rounds yet. Type a message, or load the sample conversation.'));
    history.replaceChildren(...items);
    history.scrollTop = history.scrollHeight;
  };
  return { renderHistory, restoreUnsent };
}

/** Asks the browser to confirm leaving while a message is being stored. */
function warnBeforeLeaving(event: BeforeUnloadEvent): void {
  event.preventDefault();
}

/** A round id for a draft; random, so two tabs never make the same one (getRandomValues works on plain http too). */
function newDraftId(): string {
  return `round-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
