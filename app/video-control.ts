/**
 * A self-contained demo control: attach a video, watch it being segmented, and store its segments
 * as rounds (one per T seconds, up to K keyframes each). Needs the main thread (it decodes the video
 * in a `<video>` element); the rounds themselves can go to a memory in a worker.
 */
import { errorCode, type RoundInput, type StoredRound, type VmemProgress } from 'vmem';
import { clipToRounds, formatClock, openVideoFrames, type ClipOptions } from 'vmem/video';
import { el } from './dom.js';

/** What the control needs. */
export interface VideoControlDeps {
  /** Where segments go: a memory, or the worker client of one. */
  readonly memory: { add(rounds: readonly RoundInput[], options?: { onProgress?: (event: VmemProgress) => void }): Promise<StoredRound[]> };
  /** Session the segments are stored in. @default 'default' */
  readonly sessionId?: () => string;
  /** Segmentation settings (T, K, sampling). @default the library defaults: T = 10 s, K = 3, 2 samples/s */
  readonly clipOptions?: Pick<ClipOptions, 'segmentSeconds' | 'framesPerSegment' | 'minChange' | 'sampleFps'>;
  /** Called with the stored rounds after a video was added (refresh the history view here). */
  readonly onAdded?: (rounds: StoredRound[]) => void;
  /** Shows an error; without it the control shows errors in its own alert line. */
  readonly onError?: (error: unknown) => void;
}

/** The mounted control. */
export interface VideoControl {
  /** Removes the control and cancels a run in progress. */
  destroy(): void;
}

// Share of the bar each phase fills: sampling is the slow part.
const PHASES: Record<string, { from: number; to: number; label: string }> = {
  'video-sample': { from: 0, to: 0.7, label: 'Sampling frames' },
  'video-capture': { from: 0.7, to: 0.9, label: 'Capturing keyframes' },
  ingest: { from: 0.9, to: 1, label: 'Storing segments' },
};

/**
 * Mounts the control into `container`.
 * @example
 * mountVideoControl(document.getElementById('video-slot')!, { memory, onAdded: () => history.refresh(), onError: alerts.error });
 */
export function mountVideoControl(container: HTMLElement, deps: VideoControlDeps): VideoControl {
  const fileInput = el('input', { type: 'file', accept: 'video/*', 'data-testid': 'video-file' });
  const note = el('input', { type: 'text', placeholder: 'What is in it? (optional)', maxlength: '500', autocomplete: 'off', 'aria-label': 'Note about the video' });
  const add = el('button', { type: 'button', disabled: '' }, 'Add video');
  const cancel = el('button', { type: 'button', hidden: '' }, 'Cancel');
  const bar = el('progress', { max: '1', value: '0', 'aria-label': 'Video progress' });
  const label = el('span', { class: 'video-progress-label' });
  const progressRow = el('div', { class: 'progress-row', hidden: '' }, label, bar);
  const status = el('p', { class: 'video-status', 'aria-live': 'polite' });
  const alert = el('p', { class: 'alert error', role: 'alert', hidden: '' });
  const segments = el('ol', { class: 'video-segments', 'aria-label': 'Video segments' });
  const root = el(
    'section',
    { class: 'video-control', 'aria-label': 'Add a video' },
    el('div', { class: 'row wrap' }, el('label', { class: 'file-button' }, 'Choose video', fileInput), note, add, cancel),
    progressRow,
    status,
    alert,
    segments,
  );
  container.append(root);

  let running: AbortController | undefined;
  const previews: string[] = [];
  const releasePreviews = () => previews.splice(0).forEach((url) => URL.revokeObjectURL(url));

  const showProgress = (event: VmemProgress) => {
    const phase = PHASES[event.task];
    if (!phase) return;
    const done = event.status === 'progress' ? event.loaded / Math.max(1, event.total) : event.status === 'done' ? 1 : 0;
    bar.value = phase.from + (phase.to - phase.from) * done;
    label.textContent = event.status === 'progress' ? `${phase.label} ${event.loaded}/${event.total}` : `${phase.label}…`;
  };
  const showError = (error: unknown) => {
    if (deps.onError) return deps.onError(error);
    alert.hidden = false;
    alert.textContent = `${errorCode(error) ?? 'ERROR'}: ${error instanceof Error ? error.message : String(error)}`;
  };

  fileInput.addEventListener('change', () => {
    add.disabled = fileInput.files?.length !== 1 || running !== undefined;
  });

  add.addEventListener('click', async () => {
    const file = fileInput.files?.[0];
    if (!file || running) return;
    const controller = new AbortController();
    running = controller;
    add.disabled = true;
    cancel.hidden = false;
    alert.hidden = true;
    progressRow.hidden = false;
    bar.value = 0;
    status.textContent = `Reading "${file.name}"…`;
    let frames: Awaited<ReturnType<typeof openVideoFrames>> | undefined;
    try {
      frames = await openVideoFrames(file);
      const clip = await clipToRounds(frames, {
        ...deps.clipOptions,
        name: file.name,
        note: note.value,
        timestamp: Date.now(),
        ...(deps.sessionId ? { sessionId: deps.sessionId() } : {}),
        onProgress: showProgress,
        signal: controller.signal,
      });
      controller.signal.throwIfAborted();
      const stored = await deps.memory.add(clip.rounds, { onProgress: showProgress });
      const frameCount = clip.rounds.reduce((sum, round) => sum + (round.user.images?.length ?? 0), 0);
      status.textContent = `Added "${file.name}" (${formatClock(frames.duration)}): ${stored.length} segment${stored.length === 1 ? '' : 's'}, ${frameCount} keyframe${frameCount === 1 ? '' : 's'}.`;
      releasePreviews();
      segments.replaceChildren(
        ...clip.rounds.map((round) => {
          const images = (round.user.images ?? []).map((image) => {
            const url = URL.createObjectURL(new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mimeType }));
            previews.push(url);
            return el('img', { src: url, alt: `Keyframe ${image.id}`, width: '96' });
          });
          return el('li', {}, el('span', {}, round.user.text ?? ''), ...images);
        }),
      );
      fileInput.value = '';
      note.value = '';
      deps.onAdded?.(stored);
    } catch (error) {
      status.textContent = controller.signal.aborted ? 'Cancelled; nothing was added.' : `"${file.name}" was not added.`;
      if (!controller.signal.aborted) showError(error);
    } finally {
      frames?.close();
      running = undefined;
      cancel.hidden = true;
      progressRow.hidden = true;
      add.disabled = fileInput.files?.length !== 1;
    }
  });

  cancel.addEventListener('click', () => running?.abort(new DOMException('The user cancelled adding the video.', 'AbortError')));

  return {
    destroy() {
      running?.abort(new DOMException('The video control was closed.', 'AbortError'));
      releasePreviews();
      root.remove();
    },
  };
}
