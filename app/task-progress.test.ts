import { VmemError, type ProgressCallback } from 'vmem';
import { describe, expect, it } from 'vitest';
import { plural, TaskProgress, type TaskState } from './task-progress.js';

function tracked() {
  const states: TaskState[] = [];
  return { tasks: new TaskProgress((state) => states.push(state)), states };
}

describe('TaskProgress', () => {
  it('shows a run from the moment it starts, counts the rounds reported, and ends done', async () => {
    const { tasks, states } = tracked();
    const result = await tasks.run('Storing 3 rounds', 3, async (progress) => {
      expect(states).toEqual([{ phase: 'running', label: 'Storing 3 rounds', loaded: 0, total: 3, unit: 'rounds' }]);
      const report = progress();
      report({ status: 'initiate', task: 'ingest' });
      report({ status: 'progress', task: 'ingest', loaded: 3, total: 3, unit: 'rounds' });
      report({ status: 'done', task: 'ingest' });
      return 'stored';
    });
    expect(result).toBe('stored');
    expect(states.map((state) => state.phase)).toEqual(['running', 'running', 'done']);
    expect(states[1]).toMatchObject({ loaded: 3, total: 3 });
    expect(tasks.current).toBeUndefined();
  });

  it('ends failed, with the code, when the work rejects, whatever the events said last', async () => {
    const { tasks, states } = tracked();
    const failing = tasks.run('Importing', 144, async (progress) => {
      progress()({ status: 'progress', task: 'ingest', loaded: 144, total: 144, unit: 'rounds' });
      throw new VmemError('MEMORY_LOCKED', 'changed in another tab');
    });
    await expect(failing).rejects.toThrow(VmemError);
    expect(states.at(-1)).toEqual({ phase: 'failed', label: 'Importing', code: 'MEMORY_LOCKED' });
    expect(tasks.current).toBeUndefined();
  });

  it('counts batches of one run from their offset, and never moves back', async () => {
    const { tasks, states } = tracked();
    await tasks.run('Importing', 100, async (progress) => {
      progress(0)({ status: 'progress', task: 'ingest', loaded: 64, total: 64, unit: 'rounds' });
      progress(64)({ status: 'progress', task: 'ingest', loaded: 32, total: 36, unit: 'rounds' });
      progress(64)({ status: 'progress', task: 'ingest', loaded: 10, total: 36, unit: 'rounds' });
    });
    expect(states.filter((state) => state.phase === 'running').map((state) => (state.phase === 'running' ? state.loaded : -1))).toEqual([0, 64, 96, 96]);
  });

  it('describing pictures is a run of its own, counted per picture, that ends when the job ends, after the add', async () => {
    const { tasks, states } = tracked();
    let report: ProgressCallback | undefined;
    await tasks.run('Loading the sample', 2, async (progress) => {
      report = progress();
      report({ status: 'progress', task: 'ingest', loaded: 2, total: 2, unit: 'rounds' });
    });
    expect(tasks.current).toBeUndefined();
    // The background job reports through the same callback after the add resolved.
    report!({ status: 'initiate', task: 'describe' });
    report!({ status: 'progress', task: 'describe', loaded: 1, total: 2, unit: 'images' });
    expect(tasks.current).toEqual({ phase: 'running', label: 'Describing pictures', loaded: 1, total: 2, unit: 'pictures' });
    report!({ status: 'progress', task: 'describe', loaded: 2, total: 2, unit: 'images' });
    report!({ status: 'done', task: 'describe' });
    expect(tasks.current).toBeUndefined();
    expect(states.at(-1)).toEqual({ phase: 'done', label: 'Describing pictures' });
  });

  it('while two runs overlap, shows the newer one, then the older one again when the newer ends', async () => {
    const { tasks, states } = tracked();
    let finishFirst = () => {};
    const first = tasks.run('Importing', 10, () => new Promise<void>((resolve) => (finishFirst = resolve)));
    await tasks.run('Storing your message', 1, async () => undefined);
    expect(states.at(-1)).toMatchObject({ phase: 'running', label: 'Importing' });
    finishFirst();
    await first;
    expect(states.at(-1)).toEqual({ phase: 'done', label: 'Importing' });
  });

  it('whenStoringDone waits for the runs that store rounds, not for pictures described in the background', async () => {
    const { tasks } = tracked();
    await tasks.whenStoringDone();
    let finishAdd!: () => void;
    let report: ProgressCallback | undefined;
    const adding = tasks.run('Loading the sample', 2, (progress) => {
      report = progress();
      return new Promise<void>((resolve) => (finishAdd = resolve));
    });
    let storingDone = false;
    const waited = tasks.whenStoringDone().then(() => (storingDone = true));
    report!({ status: 'initiate', task: 'describe' });
    await Promise.resolve();
    expect(storingDone).toBe(false);
    finishAdd();
    await adding;
    await waited;
    // The pictures are still being described.
    expect(tasks.current).toMatchObject({ phase: 'running', label: 'Describing pictures' });
    expect(storingDone).toBe(true);
    await tasks.whenStoringDone();
  });
});

describe('plural', () => {
  it('says "1 round" and "1,200 rounds"', () => {
    expect(plural(1, 'round')).toBe('1 round');
    expect(plural(0, 'round')).toBe('0 rounds');
    expect(plural(1200, 'round')).toBe('1,200 rounds');
  });
});
