import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCaptionProxyImageEncoder, createMemory } from 'vmem';
import { startFakeOpenAiServer, completionBody, type FakeOpenAiServer } from '../src/llm/testing/fake-openai-server.js';
import { createHashTextEncoder } from '../src/testing/hash-encoder.js';
import { runCommand, type CommandEnvironment } from './command.js';
import type { BenchReport } from './report.js';

const WORDS = ['zebra', 'lantern', 'violin', 'glacier', 'pepper', 'harbor', 'saddle', 'meteor', 'walnut', 'canyon', 'falcon', 'tulip', 'quartz', 'ribbon', 'anchor', 'cactus', 'marble', 'orchid', 'pirate', 'rocket'];

/** A Mem-Gallery style dialogue: 2 sessions × 10 rounds, each round about two words of its own. */
function dialogue(): unknown {
  const session = (s: number) => ({
    session_id: `D${s}`,
    date: `2024-0${s}-10`,
    dialogues: Array.from({ length: 10 }, (_, r) => {
      const [a, b] = [WORDS[(s - 1) * 10 + r] as string, `${WORDS[((s - 1) * 10 + r + 7) % 20] as string}x`];
      const image = s === 1 && r === 3 ? { image_id: ['D1:IMG_001'], image_caption: ['A red kite flying over a beach'] } : {};
      return { round: `D${s}:${r + 1}`, user: `Spotted ${a} beside ${b} today.`, assistant: `Nice ${a}, ${b} sounds lovely.`, ...image };
    }),
  });
  return {
    character_profile: {},
    multi_session_dialogues: [session(1), session(2)],
    'human-annotated QAs': [
      // Its only matching word is in its clue round.
      { point: 'FR', question: 'What did I say about the zebra?', answer: 'Beside lanterns.', clue: ['D1:1'] },
      // Asks about one round, while the clue names another: no system can find it by words.
      { point: 'MR', question: 'What did I say about the rocket?', answer: '?', clue: ['D1:2'] },
      { point: 'VS', question: 'Which photo shows the red kite over the beach?', answer: 'D1:IMG_001', clue: ['D1:4'] },
      { point: 'AR', question: 'Did I mention a giraffe?', answer: 'Not mentioned.', clue: [] },
    ],
  };
}

function environment(): CommandEnvironment & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    loadTextEncoder: async () => ({ encoder: createHashTextEncoder({ dimension: 128 }), dispose: async () => undefined }),
    captionProxy: createCaptionProxyImageEncoder,
    createMemory,
  };
}

describe('bench command', () => {
  let folder: string;
  let server: FakeOpenAiServer | undefined;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'vmem-bench-'));
    await mkdir(join(folder, 'data'));
    await writeFile(join(folder, 'data', 'tiny.json'), JSON.stringify(dialogue()));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(folder, { recursive: true, force: true });
  });

  async function run(extra: string[] = [], env = environment()): Promise<{ report: BenchReport; env: ReturnType<typeof environment> }> {
    const json = join(folder, 'out.json');
    const code = await runCommand(['--dataset', 'memgallery', '--data', join(folder, 'data'), '--json', json, ...extra], env);
    expect(code, env.err.join('')).toBe(0);
    return { report: JSON.parse(await readFile(json, 'utf8')) as BenchReport, env };
  }

  it('writes the report schema with every system and matched baseline', async () => {
    const { report, env } = await run();
    expect(Object.keys(report)).toEqual(['dataset', 'mode', 'encoders', 'questions', 'systems', 'abstention', 'temporal']);
    expect(report.mode).toBe('caption-proxy');
    expect(report.questions).toMatchObject({ total: 4, scored: 3, excluded: { emptyClue: 1 } });
    expect(Object.keys(report.systems)).toEqual([
      'bm25',
      'dense',
      'bm25-window',
      'hybrid-window',
      'vanilla',
      'routed',
      'rounds',
      'full',
      'bm25@matched',
      'dense@matched',
      'bm25-window@matched',
      'hybrid-window@matched',
      'vanilla@matched',
      'routed@matched',
      'rounds@matched',
    ]);
    for (const [name, system] of Object.entries(report.systems)) {
      const keys = Object.keys(system).filter((key) => key !== 'budgetReached');
      expect(keys.sort()).toEqual(name.endsWith('@matched') ? ['build', 'byCategory', 'k', 'overall', 'query'] : ['build', 'byCategory', 'overall', 'query']);
      expect(Object.keys(system.overall)).toEqual(expect.arrayContaining(['n', 'allClue', 'anyClue', 'meanRounds', 'meanChars', 'goldImages']));
      expect(system.build.rounds).toBe(20);
    }
    expect(env.out.join('')).toContain('memgallery (mode caption-proxy)');
    // The kite photo's caption names what the question asks for.
    expect(report.systems['full']?.byCategory['VS']?.goldImages).toBe(1);
  });

  it('scores a found clue 1 and a clue no word leads to 0, with the budget BM25 really returned', async () => {
    const { report } = await run();
    const bm25 = report.systems['bm25']!;
    expect(bm25.byCategory['FR']).toMatchObject({ n: 1, allClue: 1, anyClue: 1, meanRounds: 1 });
    expect(bm25.byCategory['MR']).toMatchObject({ n: 1, allClue: 0, anyClue: 0, meanRounds: 1 });
    // Round D1:1 is "Spotted zebra beside canyonx today." plus its reply.
    expect(bm25.byCategory['FR']?.meanChars).toBe('Spotted zebra beside canyonx today.'.length + 'Nice zebra, canyonx sounds lovely.'.length);
  });

  it('writes per-question details with the rank of each gold round', async () => {
    const details = join(folder, 'details.jsonl');
    await run(['--details', details]);
    const lines = (await readFile(details, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { category: string; systems: Record<string, { goldRanks: (number | null)[]; case: string }> });
    expect(lines.map((line) => line.category)).toEqual(['FR', 'MR', 'VS']);
    expect(lines[0]?.systems['bm25']?.goldRanks).toEqual([1]);
    expect(lines[1]?.systems['bm25']?.goldRanks).toEqual([null]);
    expect(lines[2]?.systems['full']?.case).toBe('text-to-image');
  });

  it('runs the baselines at the budget of full, and says when a baseline cannot get there', async () => {
    const { report } = await run();
    const target = report.systems['full']!.overall.meanRounds;
    // (routed keeps a text→image question to the rounds near a picture, so it cannot return all 20 rounds here.)
    for (const name of ['dense@matched', 'vanilla@matched']) {
      expect(Math.abs(report.systems[name]!.overall.meanRounds - target), name).toBeLessThanOrEqual(1.5);
      expect(report.systems[name]?.budgetReached, name).toBeUndefined();
    }
    // BM25 only returns rounds that share a word with the question: one per question here.
    expect(report.systems['bm25@matched']).toMatchObject({ budgetReached: false, overall: { meanRounds: 1 } });
  });

  it('measures recall against budget with --curves, for every system', async () => {
    const { report, env } = await run(['--curves', '--curve-budgets', '2,4']);
    expect(Object.keys(report)).toEqual(['dataset', 'mode', 'encoders', 'questions', 'systems', 'curves', 'abstention', 'temporal']);
    expect(Object.keys(report.curves!)).toEqual(['bm25', 'dense', 'bm25-window', 'hybrid-window', 'vanilla', 'routed', 'rounds', 'full']);
    const full = report.curves!['full']!;
    expect(full.map((point) => point.target)).toEqual([2, 4]);
    // full leaves out hits under its confidence threshold, so a k returns at most k rounds.
    for (const point of full) expect(point.rounds).toBeLessThanOrEqual(point.k);
    for (const point of full) expect(Object.keys(point).sort()).toEqual(['allClue', 'anyClue', 'k', 'meanChars', 'rounds', 'target']);
    expect(full[1]!.allClue).toBeGreaterThanOrEqual(full[0]!.allClue);
    // BM25 alone finds one round per question here, so no k reaches 2 rounds; the curve says so.
    expect(report.curves!['bm25']![0]).toMatchObject({ reached: false, rounds: 1 });
    expect(env.out.join('')).toMatch(/Recall vs budget: allClue[\s\S]*\| full +\| [01]\.\d{3} \(k\d+, \d\.\d\)/);
  });

  it('runs full over memories of float32 vectors beside full with --float-vectors', async () => {
    let memories = 0;
    const counting = environment();
    const { report, env } = await run(['--curves', '--curve-budgets', '2,4', '--float-vectors'], {
      ...counting,
      createMemory: (options) => {
        memories++;
        return counting.createMemory(options);
      },
    });
    // One dialogue: its memory, and the same rounds in a memory of float32 vectors.
    expect(memories).toBe(2);
    const names = Object.keys(report.systems);
    expect(names.slice(names.indexOf('full'), names.indexOf('full') + 2)).toEqual(['full', 'full-float32']);
    expect(Object.keys(report.curves!)).toEqual(['bm25', 'dense', 'bm25-window', 'hybrid-window', 'vanilla', 'routed', 'rounds', 'full', 'full-float32']);
    expect(report.systems['full-float32']!.overall.n).toBe(report.systems['full']!.overall.n);
    expect(report.curves!['full-float32']!.map((point) => point.target)).toEqual([2, 4]);
    expect(report.systems['full-float32@matched']).toBeUndefined();
    expect(env.out.join('')).toMatch(/Recall vs budget: allClue[\s\S]*\| full-float32 +\| [01]\.\d{3} \(k\d+, \d\.\d\)/);
  });

  it('measures what each stage of full adds with --stages', async () => {
    const { report } = await run(['--stages', '--curve-budgets', '4']);
    expect(Object.keys(report.systems)).toEqual(Object.keys(report.curves!));
    expect(Object.keys(report.curves!)).toEqual(expect.arrayContaining(['full', 'context: V-Mem ±1 window', '− session share', '− round documents']));
    expect(report.systems['bm25']).toBeUndefined();
    // full leaves out weak hits, so it may need a k above the budget to return that many rounds.
    expect(report.curves!['full']![0]).toMatchObject({ target: 4 });
    expect(report.curves!['full']![0]!.k).toBeGreaterThanOrEqual(4);
  });

  it('keeps text vectors on disk with --cache-vectors and says when a build read them from there', async () => {
    const cacheDir = join(folder, 'cache');
    const first = await run(['--cache-vectors', '--cache-dir', cacheDir]);
    expect(first.report.encoders.vectorCache).toMatchObject({ servedTexts: 0 });
    expect(first.report.encoders.buildTextsEmbedded).toBeGreaterThan(0);
    const second = await run(['--cache-vectors', '--cache-dir', cacheDir]);
    expect(second.report.encoders.buildTextsEmbedded).toBe(0);
    // The build's texts, and the questions the abstention and temporal tables asked, came from disk.
    expect(second.report.encoders.vectorCache!.servedTexts).toBeGreaterThanOrEqual(first.report.encoders.buildTextsEmbedded);
    expect(second.env.out.join('')).toMatch(/came from the on-disk cache .* not an encoding time/);
    expect(second.report.systems['full']!.overall).toEqual(first.report.systems['full']!.overall);
  });

  it('answers and judges through an OpenAI-compatible server with --llm', async () => {
    server = await startFakeOpenAiServer((request) => {
      const text = JSON.stringify(request.body);
      return { body: completionBody(text.includes('Reference answer') ? 'Grade: 1' : 'Beside lanterns.') };
    });
    const { report } = await run(['--llm', '--llm-base-url', server.url, '--llm-model', 'fake']);
    expect(report.mode).toBe('caption-proxy+llm');
    expect(report.systems['full+llm']?.overall).toMatchObject({ n: 3, judge: 1 });
    expect(report.systems['full']?.overall.judge).toBeUndefined();
    const judged = server.requests.filter((r) => JSON.stringify(r.body).includes('Reference answer'));
    expect(judged).toHaveLength(3);
  });

  it('fails with a usage error on an unknown flag and with a clear error on a missing path', async () => {
    const env = environment();
    expect(await runCommand(['--dataset', 'memgallery', '--data', join(folder, 'data'), '--fast'], env)).toBe(2);
    expect(env.err.join('')).toMatch(/Unknown option '--fast'[\s\S]*Usage/);
    expect(await runCommand(['--dataset', 'memgallery', '--data', join(folder, 'missing')], env)).toBe(1);
    expect(env.err.join('')).toMatch(/Benchmark data not found/);
  });
});
