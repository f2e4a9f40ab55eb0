import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiProvider } from '../llm/openai.js';
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from '../llm/testing/fake-openai-server.js';
import { createMemory } from './memory.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import type { ImageEmbedder } from '../encoders/types.js';
import { taggedPictureBytes } from '../testing/tagged-picture.js';

let server: FakeOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lastUserText = (request: RecordedRequest) => {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const content = messages.at(-1)!.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
};

const constantImageEncoder: ImageEmbedder = {
  id: 'constant-image',
  dimension: 4,
  async embed(images) {
    return images.map(() => new Float32Array([1, 0, 0, 0]));
  },
};

async function memoryWithLlm(reply: (request: RecordedRequest) => string, options: { vision?: boolean; status?: number } = {}) {
  server = await startFakeOpenAiServer((request) =>
    options.status ? { status: options.status, body: { error: { message: 'upstream down' } } } : { body: completionBody(reply(request)) },
  );
  const llm = createOpenAiProvider({ baseUrl: server.url, model: 'test-model', apiKey: 'sk-secret', vision: options.vision ?? false, timeoutMs: 5_000 });
  const memory = await createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: constantImageEncoder, llm });
  await memory.add([
    { id: 'garden', sessionId: 's', user: { text: 'My tomatoes are growing', images: [{ caption: 'green tomato plants on a balcony', bytes: taggedPictureBytes('garden'), mimeType: 'image/jpeg' }] } },
    { id: 'beach', sessionId: 's', user: { text: 'Holiday time', images: [{ caption: 'surfers riding waves at sunset', bytes: taggedPictureBytes('beach'), mimeType: 'image/jpeg' }] } },
    { id: 'chat', sessionId: 's', user: { text: 'I fixed the printer driver' } },
  ]);
  return memory;
}

describe('memory with an LLM: anchors', () => {
  it('text→image searches captions with a hypothetical caption from the LLM', async () => {
    const memory = await memoryWithLlm(() => 'Caption: surfers on ocean waves at sunset');
    const result = await memory.retrieve('Which picture was from my trip?');
    expect(server!.requests).toHaveLength(1);
    expect(lastUserText(server!.requests[0]!)).toContain('Which picture was from my trip?');
    expect(result.captionAnchor).toBe('surfers on ocean waves at sunset');
    expect(result.trace[0]!.roundId).toBe('beach');
    expect(result.trace[0]!.hits.map((hit) => hit.signal)).toContain('caption-anchor');
    expect(result.images[0]!.caption).toBe('surfers riding waves at sunset');
  });

  it('the hypothetical caption searches the captions by BM25 as well as by vector', async () => {
    const memory = await memoryWithLlm(() => 'Caption: surfers on ocean waves at sunset');
    const result = await memory.retrieve('Which picture was from my trip?');
    const anchorHits = result.trace[0]!.hits.filter((hit) => hit.signal === 'caption-anchor');
    // One vote from each search; a BM25 score of three shared words is above any cosine.
    expect(anchorHits).toHaveLength(2);
    expect(anchorHits.every((hit) => hit.unitKind === 'caption')).toBe(true);
    expect(Math.max(...anchorHits.map((hit) => hit.score))).toBeGreaterThan(1);
  });

  it('counting questions skip the hypothetical caption', async () => {
    const memory = await memoryWithLlm(() => 'anything');
    const result = await memory.retrieve('How many photos of plants did I send?');
    expect(result.route.counting).toBe(true);
    expect(server!.requests).toHaveLength(0);
    expect(result.captionAnchor).toBeUndefined();
  });

  it('image+text→text appends keywords a vision LLM reads off the query image', async () => {
    const memory = await memoryWithLlm(() => 'printer, driver, cable', { vision: true });
    const result = await memory.retrieve({ text: 'What did I say about this?', image: { bytes: taggedPictureBytes('query'), mimeType: 'image/jpeg' } });
    expect(result.case).toBe('image+text-to-text');
    expect(result.queryText).toBe('What did I say about this? printer driver cable');
    const body = server!.requests[0]!.body as { messages: { content: unknown }[] };
    expect(JSON.stringify(body.messages)).toContain('data:image/jpeg;base64,');
    // The keywords alone lead BM25 to the printer round, which has no picture at all.
    const chat = result.trace.find((entry) => entry.roundId === 'chat');
    expect(chat?.hits.find((hit) => hit.signal === 'bm25')?.rank).toBe(1);
  });

  it('a failing LLM degrades to the raw query with a warning, not an error', async () => {
    const memory = await memoryWithLlm(() => '', { status: 500 });
    const result = await memory.retrieve('Which photo had the tomato plants?');
    expect(result.captionAnchor).toBeUndefined();
    expect(result.warnings?.[0]).toMatch(/Hypothetical caption skipped: .*500/);
    expect(result.warnings?.[0]).not.toContain('sk-secret');
    expect(result.trace[0]!.roundId).toBe('garden');
  });

  it('answers with our prompt and the retrieved context', async () => {
    const memory = await memoryWithLlm(() => 'You fixed the printer driver.');
    const answered = await memory.answer('What did I fix?');
    expect(answered.answer).toBe('You fixed the printer driver.');
    expect(lastUserText(server!.requests[0]!)).toContain('I fixed the printer driver');
    expect(answered.retrieval.trace[0]!.roundId).toBe('chat');
  });

  it('tells the answer prompt what the attached picture shows and its best stored match', async () => {
    const memory = await memoryWithLlm(() => 'On your balcony.');
    const answered = await memory.answer({ text: 'Where is this growing?', image: { bytes: taggedPictureBytes('tomato'), mimeType: 'image/jpeg', caption: 'a tomato plant in a pot' } });
    const matched = answered.retrieval.imageMatch!;
    expect(matched.roundId).toBe('garden');
    const prompt = lastUserText(server!.requests.at(-1)!);
    expect(prompt).toContain('The question comes with a picture that shows: a tomato plant in a pot.');
    expect(prompt).toContain(`The stored picture most like it is image ${matched.imageId} from `);
    expect(prompt).toContain(': green tomato plants on a balcony.');
  });

  it('conflict questions get the Yes/No prompt', async () => {
    const memory = await memoryWithLlm(() => 'No. Nothing in memory contradicts it.');
    const answered = await memory.answer('Does this conflict with my memory: I grow tomatoes.');
    expect(answered.answer).toBe('No');
    expect(lastUserText(server!.requests[0]!)).toMatch(/exactly "Yes", "No" or "Not in memory"/);
  });
});

/**
 * A scripted model that does what the prompt asks, the way an LLM would: asked whether a statement
 * contradicts memory, it answers that; asked a question, it answers the question as asked. It knows
 * one fact, the peanut allergy, and reads it off the memory excerpts it is given.
 */
function peanutModel(request: RecordedRequest): string {
  const prompt = lastUserText(request);
  const excerpts = prompt.split(/\n\n(?:Question|Statement):/)[0]!;
  const says = /not allergic to peanuts/i.test(excerpts) ? 'not allergic' : /allergic to peanuts/i.test(excerpts) ? 'allergic' : 'nothing';
  if (/Does the statement contradict/i.test(prompt)) return says === 'not allergic' ? 'Yes. You said you are not allergic.' : 'No. Nothing contradicts it.';
  if (!/Question: Is it true that I'm allergic to peanuts\?/.test(prompt)) return 'I cannot tell what you ask.';
  if (says === 'nothing') return 'Not in memory. Nothing mentions peanuts.';
  return says === 'allergic' ? 'Yes. You said you are allergic to peanuts.' : 'No. You said the allergist found you are not allergic to peanuts.';
}

describe('memory.answer: yes/no questions are answered as asked', () => {
  async function memoryThatSays(fact: string | undefined) {
    server = await startFakeOpenAiServer((request) => ({ body: completionBody(peanutModel(request)) }));
    const llm = createOpenAiProvider({ baseUrl: server.url, model: 'test-model', timeoutMs: 5_000 });
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), llm });
    await memory.add([
      { id: 'weekend', sessionId: 's', user: { text: 'We went hiking in the hills on Saturday.' } },
      ...(fact ? [{ id: 'fact', sessionId: 's', user: { text: fact } }] : []),
      { id: 'work', sessionId: 's', user: { text: 'The quarterly report is due on Friday.' } },
    ]);
    return memory;
  }
  const question = "Is it true that I'm allergic to peanuts?";

  it('a statement the memory supports is a Yes', async () => {
    const answered = await (await memoryThatSays("I'm allergic to peanuts, so no satay for me.")).answer(question);
    expect(answered.retrieval.route.conflict).toBe(true);
    expect(answered.answer).toBe('Yes');
  });

  it('a statement the memory contradicts is a No', async () => {
    const answered = await (await memoryThatSays("Good news: the allergist says I'm not allergic to peanuts after all.")).answer(question);
    expect(answered.answer).toBe('No');
  });

  it('a statement the memory does not mention is not in memory', async () => {
    const answered = await (await memoryThatSays(undefined)).answer(question);
    expect(answered.answer).toBe('Not in memory');
  });
});
