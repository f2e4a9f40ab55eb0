import { describe, expect, it } from 'vitest';
import { timeSpansIn } from './time-expressions.js';

// Tuesday 1 December 2026, 15:00 UTC.
const NOW = Date.UTC(2026, 11, 1, 15);
const day = (month: number, date: number, hour = 0) => Date.UTC(2026, month - 1, date, hour);
const read = (question: string, hasRoundsIn: (start: number, end: number) => boolean = () => false) =>
  timeSpansIn(question, { now: NOW, hasRoundsIn }).map(({ start, end, soft }) => ({ start, end, ...(soft ? { soft } : {}) }));

describe('timeSpansIn: the spans people mean (now: Tuesday 1 Dec 2026)', () => {
  it.each([
    ['What did I do yesterday?', day(11, 30), day(12, 1)],
    ['What did I do last weekend?', day(11, 28), day(11, 30)],
    ['What did I say this Monday?', day(11, 30), day(12, 1)],
    ['Where did I go last Friday?', day(11, 27), day(11, 28)],
    ['What did we talk about 3 days ago?', day(11, 28), day(11, 29)],
    ['What was I doing two weeks ago?', day(11, 16), day(11, 23)],
    ['What did I buy 4 months ago?', day(8, 1), day(9, 1)],
    ['What happened last month?', day(11, 1), day(12, 1)],
    ['What did I read last year?', Date.UTC(2025, 0, 1), Date.UTC(2026, 0, 1)],
    ['What did I plant in March?', day(3, 1), day(4, 1)],
    ['What did I eat this morning?', day(12, 1), day(12, 1, 12)],
    ['Where was I the week before last?', day(11, 16), day(11, 23)],
    ['What did I do last week?', day(11, 23), day(11, 30)],
    ['What did I do this week?', day(11, 30), day(12, 2)],
    ['What did we discuss last night?', day(11, 30, 18), day(12, 1, 6)],
    ['What did Nate cook on 9 November, 2022?', Date.UTC(2022, 10, 9), Date.UTC(2022, 10, 10)],
    ['What did we plan in early August 2024?', Date.UTC(2024, 7, 1), Date.UTC(2024, 7, 11)],
    ['What happened in 2023?', Date.UTC(2023, 0, 1), Date.UTC(2024, 0, 1)],
  ])('"%s"', (question, start, end) => {
    expect(read(question)).toEqual([{ start, end }]);
  });

  it('gives vague phrases a soft window: "recently" the last two weeks, "a while ago" a week to six months back', () => {
    expect(read('What did I say recently about the car?')).toEqual([{ start: day(11, 17), end: day(12, 2), soft: true }]);
    expect(read('What did I tell you a while ago about the car?')).toEqual([{ start: day(6, 1), end: day(11, 25), soft: true }]);
  });

  it('reads a month without a year as the memory\'s own, else the latest one not in the future', () => {
    const rounds2024 = (start: number, end: number) => start <= Date.UTC(2024, 9, 15) && end > Date.UTC(2024, 9, 15);
    expect(read('What did I cook in mid-October?', rounds2024)).toEqual([{ start: Date.UTC(2024, 9, 11), end: Date.UTC(2024, 9, 21) }]);
    expect(read('What did I cook in mid-October?')).toEqual([{ start: day(10, 11), end: day(10, 21) }]);
  });

  it('finds no time in "now", a bare clock time or the verb "may"', () => {
    expect(read('Where does my brother live now?')).toEqual([]);
    expect(read('Who did I meet at 5?')).toEqual([]);
    expect(read('May I ask what my dentist is called?')).toEqual([]);
  });
});
