/**
 * A value built on first use. Concurrent callers share one build; a failed build is forgotten so the
 * next call tries again (a rejected promise is never kept).
 */
export interface Lazy<T> {
  /** The value, building it if needed. */
  get(): Promise<T>;
  /** The value when already built, else undefined. Never starts a build. */
  peek(): T | undefined;
  /** Forgets the built value (after dispose), so the next `get` builds again. */
  reset(): void;
}

/**
 * @example
 * const model = createLazy(() => loadModel(url));
 * await model.get(); // loads once; retries on the next call if this one failed
 */
export function createLazy<T>(build: () => Promise<T>): Lazy<T> {
  let value: { readonly current: T } | undefined;
  let pending: Promise<T> | undefined;
  return {
    get(): Promise<T> {
      if (value !== undefined) return Promise.resolve(value.current);
      if (pending === undefined) {
        const attempt = build().then(
          (built) => {
            if (pending === attempt) value = { current: built };
            return built;
          },
          (error: unknown) => {
            if (pending === attempt) pending = undefined;
            throw error;
          },
        );
        pending = attempt;
      }
      return pending;
    },
    peek: () => value?.current,
    reset(): void {
      value = undefined;
      pending = undefined;
    },
  };
}
