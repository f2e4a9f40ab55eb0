import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiProvider, LlmError } from 'vmem';
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer } from '../src/llm/testing/fake-openai-server.js';
import { judgeAnswer, parseGrade, snapGrade } from './judge.js';

describe('parseGrade', () => {
  it('reads "Grade: X" (the last one) or a bare number', () => {
    expect(parseGrade('Grade: 0.75')).toBe(0.75);
    expect(parseGrade('The answer misses a date.\nGrade: 0.5')).toBe(0.5);
    expect(parseGrade(' 1 ')).toBe(1);
  });

  it('rejects replies without a rubric grade', () => {
    expect(() => parseGrade('Looks good to me')).toThrow(LlmError);
    expect(() => parseGrade('Grade: 0.6')).toThrow(/instead of "Grade: X"/);
  });
});

describe('snapGrade', () => {
  it('snaps to 0, 0.5 or 1 with halfway grades going down', () => {
    expect([0, 0.25, 0.5, 0.75, 1].map(snapGrade)).toEqual([0, 0, 0.5, 0.5, 1]);
  });
});

describe('judgeAnswer against an OpenAI-compatible server', () => {
  let server: FakeOpenAiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends the question, reference and candidate and snaps the grade it gets back', async () => {
    server = await startFakeOpenAiServer(() => ({ body: completionBody('Grade: 0.75') }));
    const judge = createOpenAiProvider({ baseUrl: server.url, model: 'judge-model', apiKey: 'k' });
    const verdict = await judgeAnswer(judge, 'When did Ada adopt the cat?', 'June 2024', 'In June of 2024');
    expect(verdict).toEqual({ grade: 0.75, score: 0.5 });
    const body = server.requests[0]?.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe('judge-model');
    const prompt = body.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('When did Ada adopt the cat?');
    expect(prompt).toContain('Reference answer: June 2024');
    expect(prompt).toContain('Candidate answer: In June of 2024');
  });

  it('passes on a server failure as an LLM error', async () => {
    server = await startFakeOpenAiServer(() => ({ status: 500, body: { error: { message: 'down' } } }));
    const judge = createOpenAiProvider({ baseUrl: server.url, model: 'm' });
    await expect(judgeAnswer(judge, 'q', 'a', 'b')).rejects.toThrow(LlmError);
  });
});
