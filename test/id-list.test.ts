import { describe, expect, it } from 'vitest';
import { IdList } from '../src/db/orders.ts';

describe('IdList: the due ids of a pass, read a page at a time from one text', () => {
  it.each([
    { name: 'no ids', joined: '', size: 2, pages: [] },
    { name: 'one short page', joined: '7', size: 2, pages: [['7']] },
    { name: 'an exact page', joined: '1,2', size: 2, pages: [['1', '2']] },
    { name: 'pages and a remainder', joined: '1,2,3,40,500', size: 2, pages: [['1', '2'], ['3', '40'], ['500']] },
    {
      name: 'ids past 2^53 kept exactly',
      joined: '9007199254740993,9223372036854775807',
      size: 1,
      pages: [['9007199254740993'], ['9223372036854775807']],
    },
  ])('$name', ({ joined, size, pages }) => {
    const ids = new IdList(joined);
    const read: string[][] = [];
    for (let page = ids.next(size); page.length > 0; page = ids.next(size)) read.push(page);
    expect(read).toEqual(pages);
    expect(ids.next(size)).toEqual([]);
  });
});
