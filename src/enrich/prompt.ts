/**
 * The image-description prompt and its parser. A description is built from four parts (scene,
 * objects, people, readable text); parts with nothing to report are left out, never negated, and
 * the labels are stripped so only the description itself is indexed.
 */
import type { LlmImage, LlmMessage } from '../llm/types.js';

/** The parts of a description, each already free of its label. */
export interface DescriptionParts {
  /** The kind of place, indoors or out, with weather and time of day when outdoors. */
  readonly scene?: string;
  /** Visible objects as specific nouns, with colour and count. */
  readonly objects?: string;
  /** People, what they do and wear. */
  readonly people?: string;
  /** Readable text, quoted. */
  readonly text?: string;
}

/**
 * Asks a vision model to describe a picture in four labelled lines.
 * @example
 * const reply = await llm.complete({ messages: describePrompt({ url: dataUrl, detail: 'low' }) });
 * const caption = joinDescription(parseDescription(reply));
 */
export function describePrompt(image: LlmImage): LlmMessage[] {
  return [
    {
      role: 'system',
      content: 'You describe photos for a search index. You state only what can be seen, plainly and concretely.',
    },
    {
      role: 'user',
      content:
        'Describe the attached picture in at most four lines, each starting with its label:\n' +
        'Scene: the kind of place, indoors or outdoors; if outdoors, the weather and time of day.\n' +
        'Objects: the main visible things as specific nouns (say "golden retriever", not "animal"), each with its colour, and its count when more than one.\n' +
        'People: each person or group, what they are doing and what they are wearing.\n' +
        'Text: every readable word, number or sign, in double quotes, exactly as written.\n\n' +
        'Leave a line out entirely when there is nothing for it. Never write that something is absent, ' +
        'unknown or not visible. No other lines, no introduction.',
      images: [image],
    },
  ];
}

const LABELS: readonly [keyof DescriptionParts, RegExp][] = [
  ['scene', /^(?:scene|setting|place|location|background)$/i],
  ['objects', /^(?:objects?|items?|things|visible objects)$/i],
  ['people', /^(?:people|persons?|humans?|figures?)$/i],
  ['text', /^(?:text|readable text|visible text|writing|words|signs?|ocr)$/i],
];

// A labelled line, allowing markdown around the label: "**Scene:** …", "- Objects – …", "1. Text: …".
const LABELLED_LINE = /^\s*(?:[-*•]\s*|\d+[.)]\s*)?[*_#]*\s*([A-Za-z][A-Za-z ]{1,20}?)\s*[*_]*\s*[:：–-]\s*[*_]*\s*(.*)$/;

// Statements of absence: "there is no…", "no people", "none visible", "N/A", "not visible", "unknown".
const NEGATION =
  /\b(?:there\s+(?:is|are|was|were)\s+no|no\s+(?:visible|readable|legible|discernible|people|person|one|humans?|text|writing|words|objects?|signs?)|none|nothing|nobody|no-one|not\s+(?:visible|present|shown|readable|legible|applicable|discernible|clear)|cannot\s+be\s+(?:seen|read|determined)|can't\s+be\s+(?:seen|read)|unknown|unclear|n\/a|absent|without\s+(?:any|people|text))\b/i;

// A list item that opens with "no": "no plates", "and no cars".
const NEGATED_ITEM = /^(?:and\s+|but\s+|with\s+)?no\s/i;

/**
 * Reads a `describePrompt` reply into parts. Labels are stripped; a line without a label continues
 * the part before it (a reply with no labels at all counts as the scene). Sentences and list items
 * that state an absence are dropped, and a part left empty is omitted.
 * @example
 * parseDescription('Scene: a beach on a sunny day.\nPeople: none.\nText: "SURF SHOP"')
 * // { scene: 'a beach on a sunny day.', text: '"SURF SHOP"' }
 */
export function parseDescription(reply: string): DescriptionParts {
  const collected: Partial<Record<keyof DescriptionParts, string[]>> = {};
  let current: keyof DescriptionParts = 'scene';
  for (const rawLine of reply.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '') continue;
    const match = LABELLED_LINE.exec(line);
    const label = match ? LABELS.find(([, pattern]) => pattern.test(match[1]!.trim()))?.[0] : undefined;
    if (label) {
      current = label;
      (collected[label] ??= []).push(match![2]!);
    } else {
      (collected[current] ??= []).push(line.replace(/^[-*•]\s*/, ''));
    }
  }
  const parts: { -readonly [K in keyof DescriptionParts]: string } = {};
  for (const [key] of LABELS) {
    const cleaned = withoutNegations((collected[key] ?? []).join(' '), key === 'text');
    if (cleaned !== '') parts[key] = cleaned;
  }
  return parts;
}

/**
 * One caption from the parts, in the order scene, objects, people, text, without labels.
 * @example joinDescription({ scene: 'A kitchen', text: '"FRESH"' }) // 'A kitchen. "FRESH"'
 */
export function joinDescription(parts: DescriptionParts): string {
  return [parts.scene, parts.objects, parts.people, parts.text]
    .filter((part): part is string => part !== undefined && part.trim() !== '')
    .map((part) => {
      const trimmed = part.trim();
      return /["'”’.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
    })
    .join(' ');
}

/** Drops the sentences (and, outside quoted text, the comma-separated items) that state an absence. */
function withoutNegations(value: string, isText: boolean): string {
  const cleaned = value.replace(/[*_`]+/g, '').replace(/\s+/g, ' ').trim();
  const sentences = cleaned.split(/(?<=[.!?])\s+/);
  const kept = sentences
    .map((sentence) => {
      // Readable text is quoted verbatim: only a whole-sentence negation ("No text.") is dropped.
      if (isText) return NEGATION.test(sentence.replace(/"[^"]*"/g, '')) ? '' : sentence;
      const items = sentence.split(/\s*[,;]\s*/);
      const good = items.filter((item) => !NEGATION.test(item) && !NEGATED_ITEM.test(item));
      return good.length === items.length ? sentence : good.join(', ').replace(/[,\s]+$/, '');
    })
    .filter((sentence) => sentence.replace(/[.!?,\s]/g, '') !== '');
  return kept.join(' ').trim();
}
