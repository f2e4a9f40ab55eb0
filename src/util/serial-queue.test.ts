import { describe, expect, it } from 'vitest';
import { createLazy } from './lazy.js';
import { createSerialQueue } from './serial-queue.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('createSerialQueue', () => {
  it('runs tasks one at a time in call order', async () => {
    const queue = createSerialQueue();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await tick();
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([queue.run(task('a')), queue.run(task('b'))]);
    expect(results).toEqual(['a', 'b']);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('keeps going after a failed task', async () => {
    const queue = createSerialQueue();
    const failed = queue.run(async () => {
      throw new Error('boom');
    });
    const next = queue.run(async () => 'still works');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('still works');
  });
});

describe('createLazy', () => {
  it('builds once for concurrent callers', async () => {
    let builds = 0;
    const lazy = createLazy(async () => {
      builds++;
      await tick();
      return builds;
    });
    expect(await Promise.all([lazy.get(), lazy.get()])).toEqual([1, 1]);
    expect(await lazy.get()).toBe(1);
    expect(builds).toBe(1);
  });

  it('forgets a failed build and retries on the next call', async () => {
    let attempts = 0;
    const lazy = createLazy(async () => {
      attempts++;
      if (attempts === 1) throw new Error('first load fails');
      return 'loaded';
    });
    await expect(lazy.get()).rejects.toThrow('first load fails');
    expect(lazy.peek()).toBeUndefined();
    await expect(lazy.get()).resolves.toBe('loaded');
    expect(lazy.peek()).toBe('loaded');
  });
});
