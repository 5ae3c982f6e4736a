import { describe, expect, it } from 'vitest';
import { ageInDays, agingBucket } from '../src/report/open-items.ts';

describe('open items aging', () => {
  it.each([
    { name: "yesterday's order", day: '2026-11-20', report: '2026-11-21', age: 1, bucket: '0-1' },
    { name: 'two days', day: '2026-11-19', report: '2026-11-21', age: 2, bucket: '1-3' },
    { name: 'three days (upper bound included)', day: '2026-11-18', report: '2026-11-21', age: 3, bucket: '1-3' },
    { name: 'four days', day: '2026-11-17', report: '2026-11-21', age: 4, bucket: '3-7' },
    { name: 'seven days', day: '2026-11-14', report: '2026-11-21', age: 7, bucket: '3-7' },
    { name: 'eight days', day: '2026-11-13', report: '2026-11-21', age: 8, bucket: '7+' },
    { name: 'across a DST change (calendar days, not hours)', day: '2026-03-07', report: '2026-03-09', age: 2, bucket: '1-3' },
    { name: 'across a month end', day: '2026-02-27', report: '2026-03-02', age: 3, bucket: '1-3' },
  ])('$name', ({ day, report, age, bucket }) => {
    expect(ageInDays(day, report)).toBe(age);
    expect(agingBucket(ageInDays(day, report))).toBe(bucket);
  });
});
