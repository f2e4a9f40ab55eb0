/**
 * Runs async tasks one at a time, in call order. A failed task rejects only its own caller: the
 * queue keeps going (unlike `chain = chain.then(task)`, which poisons every later call).
 */
export interface SerialQueue {
  /**
   * Runs `task` after every task queued before it has settled.
   * @example await queue.run(() => model.predict(batch))
   */
  run<T>(task: () => Promise<T>): Promise<T>;
}

/** Creates an empty queue. */
export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      const result = tail.then(task);
      // The next task waits for this one to settle, whatever its outcome.
      tail = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
  };
}
