import { describe, expect, it } from 'vitest';
import { runOrderedPipeline } from '../src/reconcile/ordered-pipeline.ts';

async function* pagesOf(pages: number[][]): AsyncGenerator<number[]> {
  for (const p of pages) yield p;
}

describe('runOrderedPipeline', () => {
  it('keeps at most `concurrency` items in work, finishes each after its work, commits pages in order', async () => {
    let active = 0;
    let peak = 0;
    const finished: number[] = [];
    const committed: Array<{ page: number[]; results: string[] }> = [];
    await runOrderedPipeline<number, number, string>(
      pagesOf([
        [1, 2, 3, 4],
        [5, 6, 7],
        [8, 9],
      ]),
      async (n) => {
        active++;
        peak = Math.max(peak, active);
        // Later items answer sooner: the order of answers is not the order of pages.
        for (let i = 0; i < 10 - n; i++) await Promise.resolve();
        active--;
        return n * 10;
      },
      (n, fetched) => {
        finished.push(n);
        return `${n}:${fetched}`;
      },
      async (page, results) => {
        committed.push({ page, results });
      },
      { concurrency: 3, ahead: 2 },
    );
    expect(peak).toBe(3);
    expect(finished.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(committed).toEqual([
      { page: [1, 2, 3, 4], results: ['1:10', '2:20', '3:30', '4:40'] },
      { page: [5, 6, 7], results: ['5:50', '6:60', '7:70'] },
      { page: [8, 9], results: ['8:80', '9:90'] },
    ]);
  });

  it('a failed fetch fails the run at its page, and no later page is committed', async () => {
    const committed: number[][] = [];
    const run = runOrderedPipeline<number, number, number>(
      pagesOf([[1, 2], [3, 4], [5]]),
      async (n) => {
        if (n === 3) throw new Error('fetch 3 failed');
        return n;
      },
      (_n, fetched) => fetched,
      async (page) => {
        committed.push(page);
      },
      { concurrency: 2 },
    );
    await expect(run).rejects.toThrow('fetch 3 failed');
    expect(committed).toEqual([[1, 2]]);
  });

  it('stops reading pages once shouldStop says so; the pages in flight are still committed', async () => {
    const committed: number[][] = [];
    let stop = false;
    await runOrderedPipeline<number, number, number>(
      pagesOf([[1], [2], [3]]),
      async (n) => {
        if (n === 2) stop = true;
        return n;
      },
      (_n, fetched) => fetched,
      async (page) => {
        committed.push(page);
      },
      { concurrency: 4, ahead: 1, shouldStop: () => stop },
    );
    expect(committed).toEqual([[1], [2]]);
  });

  it('a work that throws at once fails its page; the slots stay counted and the pages before it are committed', async () => {
    const committed: number[][] = [];
    let active = 0;
    let peak = 0;
    const run = runOrderedPipeline<number, number, number>(
      pagesOf([[1, 2, 3], [4, 5, 6], [7]]),
      (n) => {
        if (n === 5) throw new Error('work 5 threw');
        active++;
        peak = Math.max(peak, active);
        return Promise.resolve(n).finally(() => active--);
      },
      (_n, fetched) => fetched,
      async (page) => {
        committed.push(page);
      },
      { concurrency: 2, ahead: 2 },
    );
    await expect(run).rejects.toThrow('work 5 threw');
    expect(committed).toEqual([[1, 2, 3]]);
    expect(peak).toBeLessThanOrEqual(2);
  });
});
