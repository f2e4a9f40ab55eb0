import type { BenchDataset } from './dataset.js';
import type { BenchRun } from './run.js';

/**
 * One JSON line per scored question: the question, its gold rounds, and per system the retrieval
 * case, allClue and where each gold round ranked (null = not returned). For finding out why a system
 * loses, never for tuning to single questions.
 */
export function questionDetailLines(dataset: BenchDataset, run: BenchRun): string {
  const questions = dataset.conversations.flatMap((conversation) => conversation.questions);
  const lines = questions.map((question, i) => {
    const systems = Object.fromEntries(
      run.systems.map((system) => {
        const detail = system.details[i];
        const score = system.scores[i];
        return [system.name, { case: detail?.case, allClue: score?.allClue, rounds: score?.rounds, goldRanks: detail?.goldRanks }];
      }),
    );
    return JSON.stringify({
      id: question.id,
      category: question.category,
      question: question.query.text,
      ...(question.query.image?.caption !== undefined ? { imageCaption: question.query.image.caption } : {}),
      goldRounds: question.goldRounds,
      systems,
    });
  });
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
