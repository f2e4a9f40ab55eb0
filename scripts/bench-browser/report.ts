/**
 * What `npm run bench:browser` reports: a Markdown table for people and, with `--json FILE`, one row
 * per figure for machines: `{ commit, rows: [{ id, value, unit }] }`.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

/** A line of the Markdown table. */
export interface Row {
  readonly measure: string;
  readonly value: string;
  readonly target: string;
  readonly note?: string;
}

/** The units a figure is given in. */
export type FigureUnit = 'ms' | 'MB' | 'bytes' | 'rounds/s' | 'ratio' | 'rounds';

/** A figure for machines, under a stable id such as `open.100k.firstRetrieval`. */
export interface Figure {
  readonly id: string;
  readonly value: number;
  readonly unit: FigureUnit;
}

const rows: Row[] = [];
const figures: Figure[] = [];

/** Records a table row and prints it at once, so a later failure still leaves the numbers measured so far. */
export function push(row: Row): void {
  rows.push(row);
  console.error(`bench:browser: ${row.measure.trim()}: ${row.value} (${row.note ?? ''})`);
}

/** Records a figure for `--json`. An id recorded twice is a bug in the bench, so it throws. */
export function record(id: string, value: number, unit: FigureUnit): void {
  if (figures.some((figure) => figure.id === id)) throw new Error(`bench:browser: figure ${id} recorded twice`);
  if (!Number.isFinite(value)) throw new Error(`bench:browser: figure ${id} is ${value}`);
  figures.push({ id, value, unit });
}

/** Prints the table, and writes the figures to `jsonPath` when one was given. */
export function report(title: string, jsonPath: string | undefined): void {
  console.log(`\n${title}\n`);
  console.log('| measure | result | target | note |\n| --- | --- | --- | --- |');
  for (const row of rows) console.log(`| ${row.measure} | ${row.value} | ${row.target} | ${row.note ?? ''} |`);
  if (jsonPath) {
    const commit = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim() || 'unknown';
    writeFileSync(jsonPath, `${JSON.stringify({ commit, rows: figures }, null, 2)}\n`);
    console.error(`bench:browser: wrote ${figures.length} figures to ${jsonPath}`);
  }
}
