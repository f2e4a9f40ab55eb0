import type { Query } from 'vmem';
import type { BenchConversation } from './dataset.js';

/*
 * The questions memory cannot answer, for the abstention table and for fitting confidence:
 * - foreign: each conversation is asked the next conversation's questions (the last, the first's),
 *   with the other conversation's speakers' names replaced by this one's where it has them (LoCoMo),
 *   so a name alone does not give them away;
 * - near-topic: Mem-Gallery's AR questions, about the dialogue's own topics, whose gold answer is
 *   "Not mentioned".
 */

/** A question asked of a memory that does not hold its answer. */
export interface UnanswerableQuestion {
  readonly id: string;
  readonly kind: 'foreign' | 'near-topic';
  readonly query: Query;
  /** The conversation the question was written for (for foreign ones, not the one asked). */
  readonly from: string;
}

/** The questions each conversation is asked that it cannot answer, by conversation id. */
export function unanswerableQuestions(conversations: readonly BenchConversation[]): Map<string, UnanswerableQuestion[]> {
  const out = new Map<string, UnanswerableQuestion[]>();
  conversations.forEach((conversation, at) => {
    const other = conversations[(at + 1) % conversations.length]!;
    const questions: UnanswerableQuestion[] = [];
    if (other !== conversation) {
      for (const question of other.questions) {
        questions.push({ id: `${question.id}@${conversation.id}`, kind: 'foreign', query: renamed(question.query, other.speakers, conversation.speakers), from: other.id });
      }
    }
    for (const question of conversation.notMentioned ?? []) questions.push({ id: question.id, kind: 'near-topic', query: question.query, from: conversation.id });
    out.set(conversation.id, questions);
  });
  return out;
}

/** The query with each of `from`'s speakers replaced by the speaker of `to` at the same place. */
function renamed(query: Query, from: readonly string[] | undefined, to: readonly string[] | undefined): Query {
  if (!from || !to || query.text === undefined) return query;
  let text = query.text;
  from.forEach((name, at) => {
    const replacement = to[at];
    if (replacement) text = text.replace(new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g'), replacement);
  });
  return { ...query, text };
}

/**
 * Area under the ROC curve: the chance that a random positive scores above a random negative
 * (ties count half).
 */
export function auroc(positives: readonly number[], negatives: readonly number[]): number {
  if (positives.length === 0 || negatives.length === 0) return Number.NaN;
  const all = [...positives.map((score) => ({ score, positive: true })), ...negatives.map((score) => ({ score, positive: false }))].sort((a, b) => a.score - b.score);
  let rankSum = 0;
  for (let i = 0; i < all.length; ) {
    // From i + 1: a NaN score equals nothing, not even itself, and must still move the scan on.
    let j = i + 1;
    while (j < all.length && all[j]!.score === all[i]!.score) j++;
    const meanRank = (i + j + 1) / 2;
    for (let m = i; m < j; m++) if (all[m]!.positive) rankSum += meanRank;
    i = j;
  }
  return (rankSum - (positives.length * (positives.length + 1)) / 2) / (positives.length * negatives.length);
}
