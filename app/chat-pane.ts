/**
 * The chat pane: history with "Forget", and the compose form (user text, optional assistant text,
 * images by picker, paste or drag-and-drop). Nothing typed is cleared until the round is stored.
 */
import { DEFAULT_MAX_TEXT_CHARS, VmemError } from 'vmem';
import type { AppState } from './app-state.js';
import { byId, el } from './dom.js';
import { readImageFile, type CheckedImage } from './files.js';
import { renderRound } from './round-view.js';

/** History rows rendered at once; older rounds stay stored and searchable. */
const HISTORY_SHOWN = 50;

/** Runs an action and reports its failure; used by every button. */
export type Act = (action: () => Promise<void>) => Promise<void>;

/** Binds the chat pane to the page. Returns `renderHistory` for when the memory changes. */
export function bindChatPane(app: AppState, act: Act): { renderHistory(): void } {
  const history = byId('history', HTMLOListElement);
  const form = byId('compose', HTMLFormElement);
  const userText = byId('user-text', HTMLTextAreaElement);
  const assistantText = byId('assistant-text', HTMLTextAreaElement);
  const picker = byId('attach-images', HTMLInputElement);
  const list = byId('attachments', HTMLUListElement);
  const dropZone = byId('drop-zone', HTMLDivElement);
  const replyButton = byId('send-and-reply', HTMLButtonElement);
  let attachments: { image: CheckedImage; url: string }[] = [];

  const renderAttachments = () => {
    list.replaceChildren(
      ...attachments.map((attachment, index) => {
        const remove = el('button', { type: 'button', class: 'link', 'aria-label': `Remove ${attachment.image.fileName}` }, 'Remove');
        remove.addEventListener('click', () => {
          URL.revokeObjectURL(attachment.url);
          attachments = attachments.filter((_, i) => i !== index);
          renderAttachments();
        });
        return el('li', {}, el('img', { src: attachment.url, alt: attachment.image.fileName }), el('span', {}, attachment.image.fileName), remove);
      }),
    );
  };

  /** Checks each file on its own: a bad one is reported, the good ones are still attached. */
  const attachFiles = async (files: readonly File[]) => {
    for (const file of files) {
      await act(async () => {
        const image = await readImageFile(file);
        attachments.push({ image, url: URL.createObjectURL(new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mimeType })) });
        renderAttachments();
      });
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
      if (files.length > 0) {
        event.preventDefault();
        void attachFiles(files);
        return;
      }
      const pasted = event.clipboardData?.getData('text/plain') ?? '';
      const limit = DEFAULT_MAX_TEXT_CHARS;
      if (area.value.length + pasted.length > limit) {
        // Refuse the paste instead of freezing the page on megabytes of text; the draft stays as it was.
        event.preventDefault();
        void act(async () => {
          throw new VmemError(
            'TEXT_TOO_LONG',
            `The pasted text is ${pasted.length.toLocaleString('en')} characters; a message may hold ${limit.toLocaleString('en')}. Nothing was pasted and your draft is unchanged; split the text into shorter messages.`,
          );
        });
      }
    });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(async () => {
      const user = userText.value;
      const assistant = assistantText.value;
      for (const [who, text] of [['Your message', user], ['The assistant text', assistant]] as const) {
        if (text.length > DEFAULT_MAX_TEXT_CHARS) {
          throw new VmemError('TEXT_TOO_LONG', `${who} is ${text.length.toLocaleString('en')} characters; the limit is ${DEFAULT_MAX_TEXT_CHARS.toLocaleString('en')}. Shorten it; nothing was stored.`);
        }
      }
      const images = attachments.map(({ image }) => ({ bytes: image.bytes, mimeType: image.mimeType }));
      await app.memory.add({ user: { text: user, images }, assistant: { text: assistant } });
      userText.value = '';
      assistantText.value = '';
      for (const attachment of attachments) URL.revokeObjectURL(attachment.url);
      attachments = [];
      renderAttachments();
      renderHistory();
    });
  });

  replyButton.addEventListener('click', () => {
    void act(async () => {
      const question = userText.value.trim();
      if (!question) throw new VmemError('EMPTY_QUERY', 'Type your message first; the LLM replies to it using the memory.');
      replyButton.disabled = true;
      try {
        const result = await app.memory.answer(question);
        assistantText.value = result.answer;
      } finally {
        replyButton.disabled = false;
      }
    });
  });

  const renderHistory = () => {
    const session = app.session;
    if (!session) return;
    const rounds = session.memory.rounds();
    const shown = rounds.slice(-HISTORY_SHOWN);
    const items = shown.map((round) =>
      el(
        'li',
        {},
        renderRound(round, {
          images: app.images,
          onForget: (roundId) =>
            void act(async () => {
              await app.memory.forget(roundId);
              renderHistory();
            }),
        }),
      ),
    );
    if (rounds.length > shown.length) items.unshift(el('li', { class: 'muted' }, `Showing the last ${shown.length} of ${rounds.length} rounds; all of them are searchable.`));
    if (rounds.length === 0) items.push(el('li', { class: 'muted' }, 'No rounds yet. Type a message, or load the sample conversation.'));
    history.replaceChildren(...items);
    history.scrollTop = history.scrollHeight;
  };
  return { renderHistory };
}
