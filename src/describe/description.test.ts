import { describe, expect, it } from 'vitest';
import type { ImageDescription } from 'vmem';
import { derivedText, descriptionParts, labelledDescription } from 'vmem/internal';

const nothing: ImageDescription = {
  objects: [],
  people: 0,
  text: '',
  colours: [],
  mostlyText: false,
  screenshot: false,
  timings: { decode: 1, detect: 1, analyse: 1 },
};

describe('derivedText', () => {
  it('puts objects with colour and count first, then people, quoted text, then the picture', () => {
    const description: ImageDescription = {
      ...nothing,
      objects: [
        { label: 'horse', count: 2, colour: 'brown' },
        { label: 'umbrella', count: 1, colour: 'orange' },
        { label: 'knife', count: 3 },
        { label: 'bus', count: 12 },
      ],
      people: 3,
      peopleColour: 'white',
      text: 'Gate 12\n  Departures ',
      colours: ['gray', 'red', 'white'],
    };
    expect(descriptionParts(description).map((part) => part.field)).toEqual(['objects', 'people', 'text', 'picture']);
    expect(derivedText(description)).toBe(
      'two brown horses, an orange umbrella, three knives, 12 buses. three people in white. "Gate 12 Departures". mostly gray, red and white',
    );
    expect(labelledDescription(description)).toBe(
      'Objects: two brown horses, an orange umbrella, three knives, 12 buses. People: three people in white. Text: "Gate 12 Departures". Picture: mostly gray, red and white',
    );
  });

  it('leaves out empty parts and says nothing for a picture it saw nothing in', () => {
    expect(derivedText(nothing)).toBe('');
    expect(derivedText({ ...nothing, people: 1 })).toBe('a person');
    expect(derivedText({ ...nothing, screenshot: true, colours: ['white'] })).toBe('a screenshot, mostly white');
    expect(derivedText({ ...nothing, mostlyText: true, text: 'Chapter 1' })).toBe('"Chapter 1". a page of text');
  });

  it('cuts very long text at a word boundary', () => {
    const text = 'lorem ipsum '.repeat(400);
    const indexed = derivedText({ ...nothing, text });
    expect(indexed.length).toBeLessThanOrEqual(1503);
    expect(indexed).toMatch(/^"lorem ipsum .*(lorem|ipsum)…"$/);
  });
});
