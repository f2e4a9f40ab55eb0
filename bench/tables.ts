import type { BenchReport, CurveEntry, ReportEntry, SystemReport } from './report.js';

type Row = readonly string[];

/** A Markdown table, columns padded so it also reads well in a terminal. */
export function markdownTable(header: Row, rows: readonly Row[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (row: Row): string => `| ${row.map((cell, i) => cell.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const fixed = (digits: number) => (value: number | undefined): string => (value === undefined ? '' : value.toFixed(digits));
const recall = fixed(3);
const budget = fixed(1);

/**
 * The report as text: a heading with data, mode, encoders, question counts and build time, the
 * overall table (one row per system), then allClue, anyClue and meanRounds per category.
 */
export function formatReport(report: BenchReport): string {
  const systems = Object.entries(report.systems);
  const firstSystem = systems[0]?.[1];
  const hasJudge = systems.some(([, s]) => s.overall.judge !== undefined);
  const hasImages = systems.some(([, s]) => s.overall.goldImages !== undefined);
  const sections = [heading(report, firstSystem), overallTable(systems, hasImages, hasJudge)];
  const categories = Object.keys(firstSystem?.byCategory ?? {});
  const perCategory = (title: string, pick: (entry: ReportEntry) => number | undefined, format: (v: number | undefined) => string): string =>
    `${title}\n\n${markdownTable(['system', ...categories], systems.map(([name, s]) => [name, ...categories.map((c) => format(s.byCategory[c] ? pick(s.byCategory[c]) : undefined))]))}`;
  sections.push(perCategory('allClue by category', (e) => e.allClue, recall));
  sections.push(perCategory('anyClue by category', (e) => e.anyClue, recall));
  sections.push(perCategory('meanRounds by category', (e) => e.meanRounds, budget));
  if (hasJudge) sections.push(perCategory('judge score by category (0 / 0.5 / 1 per answer)', (e) => e.judge, recall));
  if (report.curves) sections.push(...curveTables(report.curves));
  if (report.abstention) sections.push(abstentionTable(report.abstention));
  if (report.temporal) sections.push(temporalTable(report.temporal));
  const counts = `n per category: ${categories.map((c) => `${c} ${firstSystem?.byCategory[c]?.n ?? 0}`).join(', ')}`;
  return `${sections.join('\n\n')}\n\n${counts}\n`;
}

/** Recall against budget: one row per system, one column per target budget (the k used and the rounds it gave in the first table). */
function curveTables(curves: NonNullable<BenchReport['curves']>): string[] {
  const entries = Object.entries(curves);
  const targets = entries[0]?.[1].map((point) => point.target) ?? [];
  const header = ['system', ...targets.map((target) => `${target} rounds`)];
  const table = (title: string, cell: (point: CurveEntry) => string) =>
    `${title}\n\n${markdownTable(header, entries.map(([name, points]) => [name, ...points.map(cell)]))}`;
  return [
    table('Recall vs budget: allClue (k, mean rounds; ! = budget not reached)', (p) => `${recall(p.allClue)} (k${p.k}, ${budget(p.rounds)}${p.reached === false ? '!' : ''})`),
    table('Recall vs budget: anyClue', (p) => recall(p.anyClue)),
    table('Recall vs budget: meanChars', (p) => fixed(0)(p.meanChars)),
  ];
}

/** The abstention table: per kind of question, AUROC against the answerable ones and the share judged not relevant. */
function abstentionTable(abstention: NonNullable<BenchReport['abstention']>): string {
  const labels = { answerable: 'answerable (own questions)', foreign: "foreign (the next dialogue's questions)", 'near-topic': 'near-topic ("Not mentioned", AR)' } as const;
  const rows = abstention.kinds.map((kind) => [labels[kind.kind], String(kind.n), kind.auroc === undefined ? '' : recall(kind.auroc), `${(100 * kind.notRelevant).toFixed(1)} %`]);
  return (
    `Abstention (full, minConfidence ${abstention.minConfidence}): AUROC of result.confidence against the answerable questions; share judged not relevant\n\n` +
    `${markdownTable(['questions', 'n', 'AUROC', 'not relevant'], rows)}\n\n` +
    `Answerable allClue: ${recall(abstention.allClueBefore)} as returned (every ranked hit), ${recall(abstention.allClueAfter)} with dropWeakHits (hits under minConfidence left out).`
  );
}

/** The temporal set: per phrase kind, how often the first hit falls in the span meant, with and without time parsing. */
function temporalTable(rows: NonNullable<BenchReport['temporal']>): string {
  const pair = (withTime: number, without: number, n: number) => (n === 0 ? '' : `${recall(withTime)} / ${recall(without)}`);
  return (
    'Temporal set (full, a fixed now per question; with time parsing / without)\n\n' +
    markdownTable(
      ['phrase kind', 'open n', 'first hit in span', 'content n', 'top-1', 'allClue'],
      rows.map((row) => [row.kind, String(row.open), pair(row.openFirstWith, row.openFirstWithout, row.open), String(row.content), pair(row.top1With, row.top1Without, row.content), pair(row.allClueWith, row.allClueWithout, row.content)]),
    )
  );
}

function heading(report: BenchReport, first: SystemReport | undefined): string {
  const { encoders, questions } = report;
  const image = encoders.image ? `, image ${encoders.image.id} (${encoders.image.dimension}-d)` : '';
  const excluded = Object.entries(questions.excluded).map(([reason, n]) => `${reason} ${n}`).join(', ') || 'none';
  const ids = questions.evidenceIds;
  const llm = encoders.llmModel === undefined ? '' : `\nLLM: answers by ${encoders.llmModel}, judged by ${encoders.judgeModel ?? encoders.llmModel}.`;
  const build = first
    ? `\nBuild (shared by all systems): ${first.build.rounds} rounds in ${first.build.seconds.toFixed(1)} s, ${first.build.roundsPerSecond} rounds/s; ` +
      `${encoders.buildEmbedSeconds.toFixed(1)} s of it embedding ${encoders.buildTextsEmbedded} distinct texts.` +
      (encoders.vectorCache && encoders.vectorCache.servedTexts > 0
        ? ` Vectors of ${encoders.vectorCache.servedTexts} texts came from the on-disk cache (${encoders.vectorCache.file}), so this is not an encoding time.`
        : '')
    : '';
  return [
    `## ${report.dataset} (mode ${report.mode})`,
    '',
    `Encoders (${encoders.kind}, loaded in ${encoders.loadSeconds.toFixed(1)} s): text ${encoders.text.id} (${encoders.text.dimension}-d)${image}${encoders.wordVectors ? `; word vectors ${encoders.wordVectors}` : ''}.`,
    'Describer: not run. The pictures in these data sets have captions and no bytes, so the offline describer has no pixels to read; derived units appear only for pictures with bytes.',
    `Questions: ${questions.total} total, ${questions.scored} scored; excluded: ${excluded}. Gold ids: ${ids.total}, malformed ${ids.malformed}, missing ${ids.missing}.${build}${llm}`,
  ].join('\n');
}

function overallTable(systems: ReadonlyArray<readonly [string, SystemReport]>, hasImages: boolean, hasJudge: boolean): string {
  const header = ['system', 'k', 'n', 'allClue', 'anyClue', 'meanRounds', 'meanChars', ...(hasImages ? ['goldImages (VS)'] : []), ...(hasJudge ? ['judge'] : []), 'p50 ms', 'p95 ms'];
  const rows = systems.map(([name, s]) => [
    name,
    s.k === undefined ? '' : `${s.k}${s.budgetReached === false ? '!' : ''}`,
    String(s.overall.n),
    recall(s.overall.allClue),
    recall(s.overall.anyClue),
    budget(s.overall.meanRounds),
    fixed(0)(s.overall.meanChars),
    ...(hasImages ? [recall(s.overall.goldImages)] : []),
    ...(hasJudge ? [recall(s.overall.judge)] : []),
    fixed(1)(s.query.p50ms),
    fixed(1)(s.query.p95ms),
  ]);
  return `Overall (k: hits per question for matched baselines; rounds for bm25/dense, units for vanilla/routed)\n\n${markdownTable(header, rows)}`;
}
