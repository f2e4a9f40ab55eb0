/** What encryption at rest costs: the same persisted memory opened plain and encrypted, in one run (docs/security.md). */
import type { BrowserContext } from 'playwright-core';
import { benchPage, log, ms } from './harness.js';
import { push, record } from './report.js';

const PASSPHRASE = 'bench passphrase';

export async function encryptionCost(context: BrowserContext, rounds: number): Promise<void> {
  const page = await benchPage(context);
  const times = 7;
  log(`persisted ${rounds}-round memory, plain and encrypted…`);
  const plain = await page.evaluate(([n, count]) => window.__bench!.persistedOpen(n, count), [rounds, times] as const);
  await page.evaluate(() => window.__bench!.release());
  const sealed = await page.evaluate(([n, count, passphrase]) => window.__bench!.persistedOpen(n, count, { passphrase }), [rounds, times, PASSPHRASE] as const);
  await page.evaluate(() => window.__bench!.release());
  const keyed = await page.evaluate(([n, count]) => window.__bench!.persistedOpen(n, count, { appKey: true }), [rounds, times] as const);
  await page.evaluate(() => window.__bench!.release());
  const size = rounds.toLocaleString('en');
  record(`encryption.unlock.${rounds}`, sealed.openToFirstRetrieval.p95, 'ms');
  push({
    measure: `unlock an encrypted ${size}-round memory (Argon2id + open + first retrieval)`,
    value: ms(sealed.openToFirstRetrieval.p95),
    target: '≤ 1000 ms',
    note: `p95 of ${times}; p50 ${ms(sealed.openToFirstRetrieval.p50)}; the same memory unencrypted: p95 ${ms(plain.openToFirstRetrieval.p95)}`,
  });
  const openRatio = sealed.open.p95 / plain.open.p95;
  record(`encryption.openRatio.${rounds}`, openRatio, 'ratio');
  push({
    measure: `open p95, encrypted ÷ unencrypted, ${size} rounds`,
    value: `${openRatio.toFixed(2)}×`,
    target: '≤ 1.2×',
    note: `encrypted ${ms(sealed.open.p95)} (Argon2id included), unencrypted ${ms(plain.open.p95)}; p50 ${ms(sealed.open.p50)} vs ${ms(plain.open.p50)}`,
  });
  const keyedRatio = keyed.open.p95 / plain.open.p95;
  record(`encryption.openRatioAppKey.${rounds}`, keyedRatio, 'ratio');
  push({
    measure: `open p95, encrypted with the app's CryptoKey (no Argon2id) ÷ unencrypted, ${size} rounds`,
    value: `${keyedRatio.toFixed(2)}×`,
    target: '—',
    note: `encrypted ${ms(keyed.open.p95)}, unencrypted ${ms(plain.open.p95)}; p50 ${ms(keyed.open.p50)} vs ${ms(plain.open.p50)}: what sealing the records costs, apart from the KDF`,
  });
  const retrievalRatio = sealed.warmRetrieval.p95 / plain.warmRetrieval.p95;
  record(`encryption.retrievalRatio.${rounds}`, retrievalRatio, 'ratio');
  push({
    measure: `retrieval p95 on an open memory, encrypted ÷ unencrypted, ${size} rounds`,
    value: `${retrievalRatio.toFixed(2)}×`,
    target: '≤ 1.2×',
    note: `encrypted ${ms(sealed.warmRetrieval.p95)}, unencrypted ${ms(plain.warmRetrieval.p95)} (p95 of ${times}, each after its open)`,
  });
  await page.close();
}
