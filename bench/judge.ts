import { LlmError, type LlmMessage, type LlmProvider } from 'vmem';

/** The grades the judge may give. */
export const JUDGE_GRADES = [0, 0.25, 0.5, 0.75, 1] as const;

/** A judge's grade, as given and snapped. */
export interface JudgeVerdict {
  /** One of {@link JUDGE_GRADES}. */
  readonly grade: number;
  /** {@link snapGrade} of `grade`: 0, 0.5 or 1. */
  readonly score: number;
}

const JUDGE_INSTRUCTIONS = `You grade answers produced by a memory assistant against a reference answer.
Judge meaning, not wording: paraphrases, extra harmless detail and different formatting of the same date or number are fine.
Grades:
- 1: says what the reference says; nothing important missing or wrong.
- 0.75: right in substance, with a small omission or imprecision.
- 0.5: partly right: about half the needed facts, or right but vague.
- 0.25: mostly wrong or missing, with a small correct piece.
- 0: wrong, unrelated, or a refusal when the reference gives an answer.
If the reference says the information was never mentioned, an answer that says so earns 1 and an invented answer earns 0.
Reply with one line, exactly "Grade: X", where X is one of 0, 0.25, 0.5, 0.75, 1.`;

/** The judge's chat messages for one question. */
export function judgeMessages(question: string, reference: string, candidate: string): LlmMessage[] {
  return [
    { role: 'system', content: JUDGE_INSTRUCTIONS },
    { role: 'user', content: `Question: ${question}\nReference answer: ${reference}\nCandidate answer: ${candidate}` },
  ];
}

/**
 * Reads the grade from the judge's reply: the last `Grade: X`, or a reply that is just the number.
 * Rejects with `LLM_MALFORMED` when there is none or it is not one of the rubric's grades.
 */
export function parseGrade(reply: string): number {
  const labelled = [...reply.matchAll(/grade\s*[:=]\s*([0-9.]+)/gi)].at(-1)?.[1];
  const bare = /^\s*([0-9.]+)\s*$/.exec(reply)?.[1];
  const text = labelled ?? bare;
  const grade = text === undefined ? Number.NaN : Number(text);
  if (!JUDGE_GRADES.some((g) => g === grade)) {
    throw new LlmError('LLM_MALFORMED', `The judge replied "${reply.slice(0, 120)}" instead of "Grade: X" with X in 0, 0.25, 0.5, 0.75, 1; use a model that follows instructions.`);
  }
  return grade;
}

/**
 * Snaps a rubric grade to {0, 0.5, 1}: to the nearest of the three, and halfway grades go down
 * (0.25 → 0, 0.75 → 0.5), so a hedged grade never counts as a better answer.
 */
export function snapGrade(grade: number): number {
  if (grade > 0.75) return 1;
  if (grade > 0.25) return 0.5;
  return 0;
}

/** Asks the judge to grade one answer. */
export async function judgeAnswer(judge: LlmProvider, question: string, reference: string, candidate: string, signal?: AbortSignal): Promise<JudgeVerdict> {
  const reply = await judge.complete({ messages: judgeMessages(question, reference, candidate), temperature: 0, maxTokens: 20, ...(signal ? { signal } : {}) });
  const grade = parseGrade(reply);
  return { grade, score: snapGrade(grade) };
}
