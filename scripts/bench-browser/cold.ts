/** Cold start to first retrieval with the models cached, and ingest rates with the real encoders. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { parseDialogueFile } from '../../app/dialogue-import.js';
import { BENCH_DATA_DIR } from '../../src/testing/shared-data.js';
import { BASE, firstPage, launch, log, ms, waitReady } from './harness.js';
import { push, record } from './report.js';

export async function coldStart(profile: string): Promise<void> {
  log('first visit (fills the HTTP and service-worker caches, loads the sample)…');
  let context = await launch(profile);
  let page = await firstPage(context);
  await page.goto(BASE);
  await waitReady(page);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.getByRole('button', { name: 'Load sample conversation' }).click();
  await page.locator('#memory-alerts .notice', { hasText: 'Loaded the sample conversation' }).waitFor({ timeout: 300_000 });
  await context.close();

  const times: number[] = [];
  const parts: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    context = await launch(profile);
    page = await firstPage(context);
    await page.goto(BASE);
    await waitReady(page);
    // performance.now() counts from the navigation start.
    const run = await page.evaluate(async () => {
      const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      const ready = performance.now();
      await window.__vmem!.app.memory.retrieve('What did my cat look like?');
      const total = performance.now();
      return { total, retrieval: total - ready, page: navigation!.domContentLoadedEventEnd, models: window.__vmem!.app.engine!.info.loadMs, open: window.__vmem!.app.session!.openMs };
    });
    times.push(run.total);
    parts.push(`page parsed ${Math.round(run.page)} ms, models ${Math.round(run.models)} ms, open ${Math.round(run.open)} ms, retrieval ${Math.round(run.retrieval)} ms`);
    if (attempt === 2) await ingest(page);
    await context.close();
  }
  times.sort((a, b) => a - b);
  record('cold.firstRetrieval', times[1]!, 'ms');
  push({ measure: 'cold start to first retrieval, models cached (median of 3 browser starts)', value: ms(times[1]!), target: '≤ 3 s', note: `runs: ${times.map((t) => Math.round(t)).join(', ')} ms; of each (DOMContentLoaded from navigation; model load in the worker; openMemory; the first retrieval): ${parts.join('; ')}` });
}

async function ingest(page: Page): Promise<void> {
  log('ingest with the real encoders…');
  // Real chat text: the first 200 rounds of a LoCoMo conversation (captions of its photos included).
  const locomo = JSON.parse(readFileSync(join(BENCH_DATA_DIR, 'locomo/locomo-dev.json'), 'utf8')) as unknown;
  const textRounds = parseDialogueFile(locomo, 'locomo-dev.json').rounds.slice(0, 200);
  const result = await page.evaluate(async (rounds) => {
    const app = window.__vmem!.app;
    const engine = app.engine!;
    // Long tasks on the page while the worker encodes: the main thread should stay responsive.
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((entry) => entry.duration)));
    observer.observe({ type: 'longtask' });
    await app.openMemory('bench-ingest');
    await app.memory.clear();
    const files = ['sk_chelsea.jpg', 'sk_coffee.jpg', 'sk_rocket.jpg', 'sk_astronaut.jpg', 'sk_horse.jpg', 'sk_coins.jpg', 'mate_LadyBird.jpg', 'mate_Storm.jpg', 'mate_Dune.jpg', 'sk_motorcycle_left.jpg'];
    const photos = await Promise.all(files.map(async (file) => new Uint8Array(await (await fetch(`samples/${file}`)).arrayBuffer())));
    // The worker is ready once USE-Lite is loaded; MobileNetV2 and its warm-up follow, in the same
    // queue. Wait for them (and load the describer's detector), so the rates below are steady ones.
    const tSettle = performance.now();
    await engine.imageEncoder!.embed([{ bytes: photos[0]!, mimeType: 'image/jpeg' }]);
    const settleMs = performance.now() - tSettle;
    const tDescriber = performance.now();
    await engine.describer!.describe([{ bytes: photos[0]!, mimeType: 'image/jpeg' }]);
    const describerLoadMs = performance.now() - tDescriber;
    const t0 = performance.now();
    await app.memory.add(rounds);
    const textMs = performance.now() - t0;
    observer.disconnect();
    // The model alone on the same texts, in add's slices of 32 rounds: the rest of add is storage and indexing.
    const texts = rounds.map((round) => [round.user.text, round.assistant?.text, ...(round.user.images ?? []).map((image) => image.caption)].filter((text): text is string => Boolean(text)));
    const t0Model = performance.now();
    for (let start = 0; start < texts.length; start += 32) await engine.textEncoder.embed(texts.slice(start, start + 32).flat());
    const textModelMs = performance.now() - t0Model;

    // 80 distinct JPEGs: each photo re-cropped 8 ways, so no two rounds share bytes (identical images
    // in one call are encoded once, which would flatter the rate).
    const distinct = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const bitmap = await createImageBitmap(new Blob([photos[i % photos.length]!], { type: 'image/jpeg' }));
        const crop = Math.floor(i / photos.length) * 8;
        const canvas = new OffscreenCanvas(bitmap.width - crop, bitmap.height - crop);
        canvas.getContext('2d')!.drawImage(bitmap, -crop, -crop);
        return new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 })).arrayBuffer());
      }),
    );
    const photoRounds = distinct.map((bytes, i) => ({ user: { text: `photo ${i}`, images: [{ bytes, mimeType: 'image/jpeg' }] } }));
    const waited = photoRounds.slice(0, 40);
    const backgrounded = photoRounds.slice(40);
    const t1 = performance.now();
    await app.memory.add(waited, { describe: 'wait' });
    const photoWaitMs = performance.now() - t1;
    const t2 = performance.now();
    await app.memory.add(backgrounded, { describe: 'background' });
    const photoBackgroundMs = performance.now() - t2;
    // The round is found by its picture at once, before its description is written.
    const probe = await app.memory.retrieve({ image: { bytes: backgrounded[0]!.user.images[0]!.bytes, mimeType: 'image/jpeg' } });
    const foundAtOnce = probe.blocks.some((block) => block.rounds.some((round) => round.user.text === backgrounded[0]!.user.text));
    const t3 = performance.now();
    await app.memory.describePending();
    const describeAfterMs = performance.now() - t3;
    // MobileNetV2 alone on the same pictures, in slices of 32 as add sends them.
    const t4 = performance.now();
    for (let start = 0; start < waited.length; start += 32) {
      await engine.imageEncoder!.embed(backgrounded.slice(start, start + 32).map((round) => ({ bytes: round.user.images[0]!.bytes, mimeType: 'image/jpeg' })));
    }
    const imageModelMs = performance.now() - t4;
    await app.openMemory('sample');
    return {
      settleMs,
      describerLoadMs,
      textMs,
      textModelMs,
      text: rounds.length,
      textUnits: texts.flat().length,
      photo: waited.length,
      photoWaitMs,
      photoBackgroundMs,
      foundAtOnce,
      describeAfterMs,
      imageModelMs,
      longest: Math.max(0, ...longTasks),
      longTasks: longTasks.length,
    };
  }, textRounds);
  const perSecond = (count: number, spentMs: number) => (count / spentMs) * 1000;
  record('ingest.text', perSecond(result.text, result.textMs), 'rounds/s');
  record('ingest.photo.wait', perSecond(result.photo, result.photoWaitMs), 'rounds/s');
  record('ingest.photo.background', perSecond(result.photo, result.photoBackgroundMs), 'rounds/s');
  const rate = (count: number, spentMs: number, digits = 0) => `${((count / spentMs) * 1000).toFixed(digits)} rounds/s`;
  push({
    measure: 'ingest, text rounds (USE-Lite int8, WASM)',
    value: rate(result.text, result.textMs),
    target: '≥ 50 rounds/s',
    note: `${result.text} LoCoMo rounds (two chat turns each) in one add, ${(result.textMs / 1000).toFixed(1)} s; USE-Lite alone on the same ${result.textUnits} texts in add's slices: ${(result.textModelMs / 1000).toFixed(1)} s (${((result.textModelMs / result.textMs) * 100).toFixed(0)} % of add; the model alone would allow ${rate(result.text, result.textModelMs)}), storage and indexing the rest; timed after the worker finished loading MobileNetV2 (${ms(result.settleMs)} still to go when the first retrieval was done)`,
  });
  push({ measure: 'longest main-thread task during that ingest', value: ms(result.longest), target: '—', note: `${result.longTasks} tasks over 50 ms` });
  const imageModelPerRound = result.imageModelMs / result.photo;
  push({
    measure: "ingest, photo rounds, describe: 'wait' (USE-Lite + MobileNetV2 + describer, WASM)",
    value: rate(result.photo, result.photoWaitMs, 1),
    target: '≥ 20 rounds/s',
    note: `${result.photo} rounds, one distinct ≤640 px JPEG each; each picture is described (CenterNet, text-line test, OCR when it finds text) before add returns, as the demo does: ${ms(result.photoWaitMs / result.photo)} a round, of which MobileNetV2 ${ms(imageModelPerRound)}; timed after the describer's first call (model load, ${ms(result.describerLoadMs)})`,
  });
  push({
    measure: "ingest, photo rounds, describe: 'background' (USE-Lite + MobileNetV2, WASM; description follows)",
    value: rate(result.photo, result.photoBackgroundMs, 1),
    target: '≥ 20 rounds/s',
    note: `${result.photo} other distinct JPEGs; add returns once rounds and image vectors are stored; ${result.foundAtOnce ? 'the first round was' : 'the first round was NOT'} retrieved by its picture right after add; the descriptions then took ${(result.describeAfterMs / 1000).toFixed(1)} s more (describePending); MobileNetV2 alone on the same pictures in add's slices: ${ms(imageModelPerRound)} a picture (${((result.imageModelMs / result.photoBackgroundMs) * 100).toFixed(0)} % of add)`,
  });
}

