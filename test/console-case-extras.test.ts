import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import ExcelJS from 'exceljs';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import { getCase } from '../src/db/cases.ts';

/**
 * Issue 39's low items on the console's cases: whom a case may be given to, the export's file name,
 * the way back to the queue keeping its filters, and the import's audit event naming its upload.
 */
let t: TestDatabase;
let app: FastifyInstance;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

beforeAll(async () => {
  t = await createTestDatabase('console_case_extras');
  await seedOpenCases(t.db.knex, 30, clock.now());
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance', ada: 'admin' });
  app = await buildTestConsole(t, clock);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.drop();
});

const version = async (id: string) => String((await getCase(t.db.knex, id))!.version);

describe('assignees', () => {
  it('the case page offers only users who can work cases, and assigning a viewer is refused', async () => {
    const fiona = new Agent(app, '10.9.0.1');
    await fiona.login('fiona');
    const page = (await fiona.get('/cases/2')).body;
    const offered = [...(/<select name="assignee">([\s\S]*?)<\/select>/.exec(page)?.[1] ?? '').matchAll(/<option value="([^"]*)"/g)].map(
      (m) => m[1],
    );
    expect(offered).toEqual(['', 'ada', 'fiona']);
    const queue = (await fiona.get('/cases')).body;
    expect(queue).not.toMatch(/<option value="vera"/);
    const res = await fiona.post('/cases/2/assign', { assignee: 'vera', version: await version('2') });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('&quot;vera&quot; is not an active console user who may work cases');
    expect((await getCase(t.db.knex, '2'))!.assignee).toBeNull();
  });
});

describe('export file names', () => {
  it('name the day, the time to the second and the filter, so no two exports share one', async () => {
    const fiona = new Agent(app, '10.9.0.2');
    await fiona.login('fiona');
    const nameOf = async (query: string) => {
      const res = await fiona.get(`/cases/export.xlsx${query}`);
      expect(res.statusCode).toBe(200);
      return /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))?.[1];
    };
    const all = await nameOf('');
    const fee = await nameOf('?code=FEE,AMOUNT&currency=NGN&sort=risk');
    clock.advance(1000);
    const feeLater = await nameOf('?code=FEE,AMOUNT&currency=NGN&sort=risk');
    expect(all).toBe('payrecon-cases-2026-11-22-1000-00.xlsx');
    expect(fee).toBe('payrecon-cases-2026-11-22-1000-00-NGN-FEE+AMOUNT-by-risk.xlsx');
    expect(feeLater).toBe('payrecon-cases-2026-11-22-1000-01-NGN-FEE+AMOUNT-by-risk.xlsx');
    expect(new Set([all, fee, feeLater]).size).toBe(3);
  });
});

describe('back to the queue', () => {
  it('keeps the filters from the queue to the case, through an action, and back', async () => {
    const fiona = new Agent(app, '10.9.0.3');
    await fiona.login('fiona');
    const queue = (await fiona.get('/cases?code=FEE&currency=INR&sort=risk')).body;
    const link = /<a href="(\/cases\/(\d+)\?back=[^"]+)">/.exec(queue);
    expect(link).not.toBeNull();
    const [, href, id] = link!;
    const back = new URL(href.replace(/&amp;/g, '&'), 'http://x').searchParams.get('back');
    expect(back).toBe('code=FEE&currency=INR&sort=risk');

    const casePage = (await fiona.get(href.replace(/&amp;/g, '&'))).body;
    expect(casePage).toContain('<a href="/cases?code=FEE&amp;currency=INR&amp;sort=risk" rel="up">back to the queue</a>');
    expect(casePage).toContain(`<input type="hidden" name="back" value="code=FEE&amp;currency=INR&amp;sort=risk" />`);

    const acted = await fiona.post(`/cases/${id}/comment`, { note: 'looked', version: await version(id), back: back! });
    expect(acted.statusCode).toBe(303);
    expect(acted.headers.location).toBe(`/cases/${id}?back=${encodeURIComponent(back!)}`);
    // Without a queue to return to, the link is the plain queue; a back that is not a queue query is dropped.
    expect((await fiona.get(`/cases/${id}`)).body).toContain('<a href="/cases" rel="up">back to the queue</a>');
    expect((await fiona.get(`/cases/${id}?back=%3Cscript%3E`)).body).toContain('<a href="/cases" rel="up">back to the queue</a>');
  });
});

describe('the import audit event', () => {
  it('names the uploaded file and its SHA-256, at the preview and at the confirm', async () => {
    const fiona = new Agent(app, '10.9.0.4');
    await fiona.login('fiona');
    const exported = await fiona.get('/cases/export.xlsx?code=AMOUNT');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.getWorksheet('Cases')!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
    const col = (label: string) => header.indexOf(label) + 1;
    sheet.getRow(2).getCell(col('resolution reason')).value = 'adjusted';
    sheet.getRow(2).getCell(col('resolution note')).value = 'booked';
    const bytes = Buffer.from(await wb.xlsx.writeBuffer());
    const sha256 = createHash('sha256').update(bytes).digest('hex');

    const boundary = '----h39-boundary';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${fiona.csrf}\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="amounts-22nov.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const preview = await app.inject({
      method: 'POST',
      url: '/cases/import',
      headers: {
        cookie: [...fiona.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      payload,
      remoteAddress: fiona.remoteAddress,
    });
    expect(preview.statusCode).toBe(200);
    const url = /action="(\/cases\/import\/[^"]+\/confirm)"/.exec(preview.body)![1];
    expect((await fiona.post(url, {})).statusCode).toBe(200);

    const rows = await t.db
      .knex('console_actions')
      .whereLike('action', 'cases-import-%')
      .orderBy('id')
      .select('action', 'actor', 'target', 'detail');
    expect(rows.map((r) => [r.action, r.actor, r.target, r.detail.sha256, r.detail.bytes])).toEqual([
      ['cases-import-previewed', 'fiona', 'amounts-22nov.xlsx', sha256, bytes.length],
      ['cases-import-applied', 'fiona', 'amounts-22nov.xlsx', sha256, bytes.length],
    ]);
    expect(rows[1].detail.resolved).toBe(1);
  });
});
