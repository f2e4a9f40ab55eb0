/** Where the benchmark reports what it is doing. */
export interface Progress {
  /** Replaces the current status line. */
  update(text: string): void;
  /** Ends the current step with a final line. */
  done(text: string): void;
}

/** A stream progress can write to: `process.stderr` or a test double. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** Reports nothing (library use, tests). */
export const silentProgress: Progress = { update: () => undefined, done: () => undefined };

/**
 * One status line on a terminal, redrawn at most every `intervalMs`; on a pipe or file, where a
 * redrawn line would pile up, a plain line at most every `pipeIntervalMs`.
 */
export function createProgressLine(stream: ProgressStream, intervalMs = 100, pipeIntervalMs = 5000): Progress {
  let last = Number.NEGATIVE_INFINITY;
  const tty = stream.isTTY === true;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < (tty ? intervalMs : pipeIntervalMs)) return;
      last = now;
      stream.write(tty ? `\r\x1b[2K${text}` : `${text}\n`);
    },
    done(text) {
      last = Number.NEGATIVE_INFINITY;
      stream.write(tty ? `\r\x1b[2K${text}\n` : `${text}\n`);
    },
  };
}
