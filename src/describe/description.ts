/**
 * The words of a derived description, in LVMem's order: objects with colour and count, people,
 * readable text (quoted), then the picture as a whole. A part with nothing in it is left out, never
 * negated ("there is no text" would match a question about text). Pure.
 */
import { pluralLabel } from './coco.js';
import type { ColourName } from './palette.js';
import type { ImageDescription, ObjectGroup } from './types.js';

/** Which part of a description a phrase is. */
export type DescriptionField = 'objects' | 'people' | 'text' | 'picture';

/** One part of a description: a label for people to read, and the words that get indexed. */
export interface DescriptionPart {
  readonly field: DescriptionField;
  /** @example 'Objects' */
  readonly label: string;
  /** @example 'a red motorcycle, two cups' */
  readonly value: string;
}

/** Readable text kept in a description; longer text is cut at a word boundary. */
const MAX_TEXT_CHARS = 1500;

const LABELS: Readonly<Record<DescriptionField, string>> = { objects: 'Objects', people: 'People', text: 'Text', picture: 'Picture' };

/**
 * The non-empty parts of a description, in order.
 * @example descriptionParts(d) // [{ field: 'objects', label: 'Objects', value: 'a red motorcycle' }, …]
 */
export function descriptionParts(description: ImageDescription): DescriptionPart[] {
  const values: [DescriptionField, string][] = [
    ['objects', description.objects.map(objectPhrase).join(', ')],
    ['people', peoplePhrase(description.people, description.peopleColour)],
    ['text', textPhrase(description.text)],
    ['picture', picturePhrase(description)],
  ];
  return values.filter(([, value]) => value !== '').map(([field, value]) => ({ field, label: LABELS[field], value }));
}

/**
 * What a memory indexes for a picture: the parts' words without their labels, so a field name never
 * matches a question ("text", "people") by itself. Empty when nothing was seen.
 * @example derivedText(d) // 'a red motorcycle. mostly gray, red and brown'
 */
export function derivedText(description: ImageDescription): string {
  return descriptionParts(description)
    .map((part) => part.value)
    .join('. ');
}

/**
 * The description for people to read, with field labels.
 * @example labelledDescription(d) // 'Objects: a red motorcycle. Picture: mostly gray, red and brown'
 */
export function labelledDescription(description: ImageDescription): string {
  return descriptionParts(description)
    .map((part) => `${part.label}: ${part.value}`)
    .join('. ');
}

/** Words of readable text kept as query keywords. */
const MAX_TEXT_KEYWORDS = 24;

/**
 * Keywords for searching with a picture: its objects (with colours), people, and the first words of
 * its readable text. The picture's overall colours are left out: they match too much.
 * @example descriptionKeywords(d) // ['red motorcycle', 'person']
 */
export function descriptionKeywords(description: ImageDescription): string[] {
  const objects = description.objects.map((group) => (group.colour ? `${group.colour} ${group.label}` : group.label));
  const people = description.people > 0 ? [description.people === 1 ? 'person' : 'people'] : [];
  const words = description.text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).slice(0, MAX_TEXT_KEYWORDS);
  return [...objects, ...people, ...words];
}

function objectPhrase(group: ObjectGroup): string {
  const noun = group.count === 1 ? group.label : pluralLabel(group.label);
  const described = group.colour ? `${group.colour} ${noun}` : noun;
  return `${countWord(group.count, described)} ${described}`;
}

function peoplePhrase(people: number, colour: ColourName | undefined): string {
  if (people === 0) return '';
  const who = people === 1 ? 'a person' : `${countWord(people, 'people')} people`;
  return colour ? `${who} in ${colour}` : who;
}

function textPhrase(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine === '') return '';
  const cut = oneLine.length <= MAX_TEXT_CHARS ? oneLine : `${oneLine.slice(0, oneLine.lastIndexOf(' ', MAX_TEXT_CHARS))}…`;
  return `"${cut}"`;
}

function picturePhrase(description: ImageDescription): string {
  const kind = description.screenshot ? 'a screenshot' : description.mostlyText ? 'a page of text' : '';
  const colours = description.colours.length > 0 ? `mostly ${joinAnd(description.colours)}` : '';
  return [kind, colours].filter(Boolean).join(', ');
}

const NUMBER_WORDS = ['', '', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** 'a'/'an' for one (by the next word's first letter), a word up to ten, digits beyond. */
function countWord(count: number, following: string): string {
  if (count === 1) return /^[aeiou]/.test(following) ? 'an' : 'a';
  return NUMBER_WORDS[count] ?? String(count);
}

function joinAnd(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
