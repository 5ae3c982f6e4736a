import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import ExcelJS from 'exceljs';
import { caseHistory, getCase } from '../src/db/cases.ts';

/** The console's queue at volume: 250 seeded open cases, a viewer and a finance user. */
let t: TestDatabase;
let app: FastifyInstance;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

beforeAll(async () => {
  t = await createTestDatabase('console_queue', { env: { CASE_SLA_HOURS: 'FEE=2,default=72' } });
  await seedOpenCases(t.db.knex, 250, clock.now());
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance', fred: 'finance' });
  app = await buildTestConsole(t, clock);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.drop();
});

const caseIds = (body: string) => [...body.matchAll(/<td class="num"><a href="\/cases\/(\d+)(?:\?back=[^"]*)?">/g)].map((m) => m[1]);
/** The href of the paging link with this rel, unescaped. */
const link = (body: string, rel: string): string | undefined =>
  [...body.matchAll(/<a href="([^"]+)" rel="(\w+)"/g)].find((m) => m[2] === rel)?.[1]?.replaceAll('&amp;', '&');

describe('the queue at volume', () => {
  it('heading has the total; pages of 100 with next, previous and last links keeping the filters', async () => {
    const vera = new Agent(app, '10.2.0.1');
    await vera.login('vera');
    const first = await vera.get('/cases');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('Cases <span class="muted">(250)</span>');
    expect(first.body).toContain('showing 1–100 of 250');
    expect(caseIds(first.body)).toHaveLength(100);
    const second = await vera.get(link(first.body, 'next')!);
    expect(second.body).toContain('showing 101–200 of 250');
    const last = await vera.get(link(first.body, 'last')!);
    expect(last.body).toContain('showing 201–250 of 250');
    expect(link(last.body, 'next')).toBeUndefined();
    const back = await vera.get(link(last.body, 'prev')!);
    expect(caseIds(back.body)).toEqual(caseIds(second.body));
    const seen = new Set([...caseIds(first.body), ...caseIds(second.body), ...caseIds(last.body)]);
    expect(seen.size).toBe(250);
    const fee = await vera.get('/cases?code=FEE&sort=risk');
    expect(fee.body).toContain('Cases <span class="muted">(83)</span>');
    expect(link(fee.body, 'next')).toBeUndefined();
    expect(fee.body).toContain('breached');
  });

  it('searches by a ref piece in any case, shows refs whole, and refuses short pieces and unknown codes naming the field', async () => {
    const vera = new Agent(app, '10.2.0.2');
    await vera.login('vera');
    const c = (await getCase(t.db.knex, '7'))!;
    const found = await vera.get(`/cases?ref=${c.merchantRef!.slice(0, 14).toLowerCase()}`);
    expect(caseIds(found.body)).toEqual(['7']);
    expect(found.body).toContain(c.merchantRef!);
    expect(found.body).toContain(c.transactionRef!);
    const short = await vera.get('/cases?ref=ORD-0');
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('ref: give at least 6 characters');
    for (const code of ['fee', 'FOO']) {
      const bad = await vera.get(`/cases?code=${code}`);
      expect(bad.statusCode, code).toBe(400);
      expect(bad.body).toContain(`code: &quot;${code}&quot; is not a finding code`);
      expect(caseIds(bad.body)).toEqual([]);
    }
    expect(found.body).toContain('<select name="code" multiple');
  });

  it('takes the code filter as a list, repeated or comma-separated, and keeps it in the paging links', async () => {
    const vera = new Agent(app, '10.2.0.9');
    await vera.login('vera');
    for (const query of ['code=FEE&code=STATUS', 'code=FEE,STATUS', 'code=FEE%2CSTATUS&code=FEE']) {
      const res = await vera.get(`/cases?${query}`);
      expect(res.statusCode, query).toBe(200);
      expect(res.body, query).toContain('Cases <span class="muted">(166)</span>');
      expect(link(res.body, 'next'), query).toContain('code=FEE%2CSTATUS');
    }
    const bad = await vera.get('/cases?code=FEE&code=BOGUS');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('code: &quot;BOGUS&quot; is not a finding code');
  });

  it('a viewer gets 403 for bulk, assign and comment; finance without the CSRF token too', async () => {
    const vera = new Agent(app, '10.2.0.3');
    await vera.login('vera');
    const v = String((await getCase(t.db.knex, '9'))!.version);
    expect((await vera.post('/cases/bulk', { sel: `9:${v}`, action: 'acknowledge' })).statusCode).toBe(403);
    expect((await vera.post('/cases/9/assign', { assignee: 'vera', version: v })).statusCode).toBe(403);
    expect((await vera.post('/cases/9/comment', { note: 'x', version: v })).statusCode).toBe(403);
    const fiona = new Agent(app, '10.2.0.4');
    await fiona.login('fiona');
    for (const [url, form] of [
      ['/cases/bulk', { sel: `9:${v}`, action: 'acknowledge' }],
      ['/cases/9/assign', { assignee: 'fiona', version: v }],
      ['/cases/9/comment', { note: 'x', version: v }],
    ] as Array<[string, Record<string, string>]>)
      expect((await fiona.post(url, form, { csrf: null })).statusCode, url).toBe(403);
    expect(await caseHistory(t.db.knex, '9')).toHaveLength(1);
  });

  it('finance resolves selected cases in bulk, one audit event each; a case changed since it was selected is refused', async () => {
    const fiona = new Agent(app, '10.2.0.5');
    await fiona.login('fiona');
    const list = await fiona.get('/cases?code=AMOUNT');
    const sel = [...list.body.matchAll(/name="sel" value="([^"]+)"/g)].map((m) => m[1]).slice(0, 5);
    expect(sel).toHaveLength(5);
    const [staleId] = sel[0].split(':');
    await fiona.post(`/cases/${staleId}/comment`, { note: 'looking', version: sel[0].split(':')[1] }); // a comment keeps the version
    await fiona.post(`/cases/${staleId}/assign`, { assignee: 'fiona', version: sel[0].split(':')[1] }); // an assignment moves it
    const res = await app.inject({
      method: 'POST',
      url: '/cases/bulk',
      headers: { cookie: [...fiona.jar].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      payload: [
        ...sel.map((s) => `sel=${encodeURIComponent(s)}`),
        'action=resolve',
        'reason=adjusted',
        'note=booked',
        `_csrf=${fiona.csrf}`,
      ].join('&'),
      remoteAddress: '10.2.0.5',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('4 cases resolved');
    expect(res.body).toContain(`case ${staleId}</a>: changed since it was selected`);
    for (const s of sel.slice(1)) {
      const id = s.split(':')[0];
      expect((await getCase(t.db.knex, id))!.state).toBe('resolved');
      expect((await caseHistory(t.db.knex, id)).at(-1)).toMatchObject({ toState: 'resolved', actor: 'console:fiona', note: 'booked' });
    }
    expect((await getCase(t.db.knex, staleId))!).toMatchObject({ state: 'open', assignee: 'fiona' });
    const mine = await fiona.get('/cases?assignee=me');
    expect(caseIds(mine.body)).toEqual([staleId]);
  });

  it('the case page: no preselected reason, a 409 keeps what was typed, "1 check", assign and comment forms', async () => {
    const fiona = new Agent(app, '10.2.0.6');
    await fiona.login('fiona');
    const page = await fiona.get('/cases/12');
    expect(page.body).toContain('<option value="" selected disabled>choose a reason…</option>');
    expect(page.body).toContain('1 check,');
    expect(page.body).toContain('action="/cases/12/assign"');
    expect(page.body).toContain('action="/cases/12/comment"');
    const refused = await fiona.post('/cases/12/resolve', { form: 'resolve', reason: 'duplicate', note: 'same as 13', version: '99' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('<option value="duplicate" selected>duplicate</option>');
    expect(refused.body).toContain('same as 13</textarea>');
  });
});

describe('bulk by filter', () => {
  const unresolvedOf = async (code: string) =>
    Number((await t.db.knex('cases').where({ code }).whereIn('state', ['open', 'acknowledged']).count<{ n: string }[]>({ n: '*' }))[0].n);

  it('previews every case the filter matches (a dry run naming a colleague’s cases), then the confirm does exactly that, one audit event each', async () => {
    const fiona = new Agent(app, '10.2.1.1');
    await fiona.login('fiona');
    const matching = await unresolvedOf('FEE');
    // Case 3 (FEE) is fred's: left to him unless asked.
    const v3 = String((await getCase(t.db.knex, '3'))!.version);
    expect((await fiona.post('/cases/3/assign', { assignee: 'fred', version: v3 })).statusCode).toBe(303);
    const queue = await fiona.get('/cases?code=FEE&currency=INR');
    const inr = Number(/Cases <span class="muted">\((\d+)\)/.exec(queue.body)![1]);
    expect(queue.body).toContain(`Preview all ${inr} matching this filter`);
    // The bulk form comes before the table's first row.
    expect(queue.body.indexOf('formaction="/cases/bulk/preview"')).toBeLessThan(queue.body.indexOf('name="sel"'));

    const form = { back: 'code=FEE', action: 'resolve', reason: 'adjusted', note: 'fees booked' };
    const preview = await fiona.post('/cases/bulk/preview', form);
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain(`Preview: ${matching - 1} cases would be resolved`);
    expect(preview.body).toContain(`${matching} match the filter; nothing has changed yet.`);
    expect(preview.body).toContain('1 case assigned to someone else would be left to them');
    expect(preview.body).toContain('case 3</a>: assigned to fred');
    expect(await unresolvedOf('FEE')).toBe(matching);

    const token = /name="token" value="([^"]+)"/.exec(preview.body)![1];
    const done = await fiona.post('/cases/bulk/confirm', { token, verb: 'resolved', back: 'code=FEE' });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain(`${matching - 1} cases resolved`);
    expect(done.body).toContain('href="/cases?code=FEE" rel="back"');
    expect(await unresolvedOf('FEE')).toBe(1);
    const resolved = await t.db.knex('cases').where({ code: 'FEE', state: 'resolved' }).pluck('id');
    for (const id of resolved.slice(0, 20)) {
      const events = (await caseHistory(t.db.knex, String(id))).filter((e) => e.toState === 'resolved');
      expect(events, String(id)).toHaveLength(1);
      expect(events[0]).toMatchObject({ reason: 'adjusted', note: 'fees booked', actor: 'console:fiona' });
    }
    // Once only.
    expect((await fiona.post('/cases/bulk/confirm', { token, verb: 'resolved' })).body).toContain('already applied');
    // Asked to include fred's case, it goes too.
    const again = await fiona.post('/cases/bulk/preview', { ...form, include_assigned: 'on' });
    expect(again.body).toContain('Preview: 1 case would be resolved');
  });

  it('refuses a preview without a filter, or without a note, keeping the filter and what was typed; a refused tick keeps the ticks', async () => {
    const fiona = new Agent(app, '10.2.1.2');
    await fiona.login('fiona');
    const whole = await fiona.post('/cases/bulk/preview', { back: '', action: 'acknowledge' });
    expect(whole.statusCode).toBe(400);
    expect(whole.body).toContain('filter: narrow the queue first');
    const noNote = await fiona.post('/cases/bulk/preview', {
      back: 'code=STATUS&currency=IDR',
      action: 'resolve',
      reason: 'other',
      note: '',
    });
    expect(noNote.statusCode).toBe(400);
    expect(noNote.body).toContain('note: say what was done or why');
    expect(noNote.body).toContain('name="back" value="code=STATUS&amp;currency=IDR"');
    expect(noNote.body).toContain('href="/cases?code=STATUS&amp;currency=IDR" rel="back"');
    expect(noNote.body).toContain('<option value="other" selected>');
    const ticked = await fiona.post('/cases/bulk', { back: 'code=STATUS', sel: '5:1', action: 'resolve', reason: 'other' });
    expect(ticked.statusCode).toBe(400);
    expect(ticked.body).toContain('name="sel" value="5:1"');
    expect(ticked.body).toContain('href="/cases?code=STATUS" rel="back"');
  });
});

describe('export', () => {
  it('a viewer downloads the filtered queue as a workbook: every match, whole refs, empty resolution columns', async () => {
    const vera = new Agent(app, '10.2.0.7');
    await vera.login('vera');
    const res = await vera.get('/cases/export.xlsx?code=STATUS');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.getWorksheet('Cases')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header.at(-2)).toBe('resolution reason');
    expect(sheet.actualRowCount).toBe(1 + 83);
    const c = (await getCase(t.db.knex, '5'))!;
    const col = (label: string) => header.indexOf(label) + 1;
    const row = sheet.getRows(2, 83)!.find((r) => String(r.getCell(col('case id')).value) === '5')!;
    expect(String(row.getCell(col('merchant ref')).value)).toBe(c.merchantRef);
    expect(row.getCell(col('resolution reason')).value ?? '').toBe('');
    expect((await vera.get('/cases/export.xlsx?code=fee')).statusCode).toBe(400);
  });

  it('exports money as numbers with the currency’s decimals: local, provider, the signed difference, at risk; non-money apart as text', async () => {
    const vera = new Agent(app, '10.2.0.8');
    await vera.login('vera');
    const res = await vera.get('/cases/export.xlsx?code=FEE,STATUS&state=all');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.getWorksheet('Cases')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    const col = (label: string) => header.indexOf(label) + 1;
    const rows = sheet.getRows(2, sheet.actualRowCount - 1)!;
    expect(rows).toHaveLength(166);
    // Case 6 (seed): FEE in IDR, local 1006.00, provider 1012.00.
    const fee = rows.find((r) => String(r.getCell(col('case id')).value) === '6')!;
    for (const [label, value] of [
      ['local', 1006],
      ['provider', 1012],
      ['difference', 6],
      ['at risk', 6],
    ] as const) {
      const cell = fee.getCell(col(label));
      expect(cell.value, label).toBe(value);
      expect(cell.numFmt, label).toMatch(/0\.00(?!0)/);
    }
    expect(fee.getCell(col('local detail')).value ?? '').toBe('');
    // Case 5: STATUS, nothing at stake: no number, the values as text in their own columns.
    const status = rows.find((r) => String(r.getCell(col('case id')).value) === '5')!;
    expect(status.getCell(col('local')).value ?? null).toBeNull();
    expect(status.getCell(col('difference')).value ?? null).toBeNull();
    expect(status.getCell(col('local detail')).value).toBe('success');
    expect(status.getCell(col('provider detail')).value).toBe('failed');
    expect(typeof status.getCell(col('merchant ref')).value).toBe('string');
  });
});
