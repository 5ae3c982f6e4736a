import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import ExcelJS from 'exceljs';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { Agent, addUsers, buildTestConsole, FixedClock } from './helpers/console.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';
import { caseHistory, getCase } from '../src/db/cases.ts';
import { EXPORT_COLUMNS } from '../src/cases/export-rows.ts';
import { encodeCsvRecord } from '../src/report/csv-file.ts';

/** The spreadsheet round trip: export the queue, fill in the resolution columns, upload, preview, confirm. */
let t: TestDatabase;
let app: FastifyInstance;
const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));

beforeAll(async () => {
  t = await createTestDatabase('console_import');
  await seedOpenCases(t.db.knex, 60, clock.now());
  await addUsers(t, clock, { vera: 'viewer', fiona: 'finance', fred: 'finance' });
  app = await buildTestConsole(t, clock);
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.drop();
});

type Part = { name: string; value: string } | { name: string; filename: string; bytes: Buffer };

/** A multipart/form-data body as a browser sends it, parts in the order given. */
function multipart(parts: Part[]): { payload: Buffer; contentType: string } {
  const boundary = '----payrecon-test-boundary';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const head =
      'bytes' in p
        ? `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream`
        : `Content-Disposition: form-data; name="${p.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`), 'bytes' in p ? p.bytes : Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(agent: Agent, file: { filename: string; bytes: Buffer }, csrf: string | null = agent.csrf) {
  const body = multipart([...(csrf ? [{ name: '_csrf', value: csrf }] : []), { name: 'file', ...file }]);
  return app.inject({
    method: 'POST',
    url: '/cases/import',
    headers: { cookie: [...agent.jar].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': body.contentType },
    payload: body.payload,
    remoteAddress: agent.remoteAddress,
  });
}

/** The exported workbook with resolution reason and note filled in for some case ids. */
async function filledExport(agent: Agent, query: string, fill: Record<string, [string, string]>, extra: string[][] = []): Promise<Buffer> {
  const res = await agent.get(`/cases/export.xlsx${query}`);
  expect(res.statusCode).toBe(200);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
  const sheet = wb.getWorksheet('Cases')!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const col = (label: string) => header.indexOf(label) + 1;
  sheet.eachRow((row, n) => {
    const f = n > 1 ? fill[String(row.getCell(col('case id')).value)] : undefined;
    if (f) {
      row.getCell(col('resolution reason')).value = f[0];
      row.getCell(col('resolution note')).value = f[1];
    }
  });
  for (const cells of extra) {
    const row = sheet.addRow([]);
    row.getCell(col('case id')).value = cells[0];
    row.getCell(col('version')).value = cells[1];
    row.getCell(col('resolution reason')).value = cells[2];
    row.getCell(col('resolution note')).value = cells[3];
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const version = async (id: string) => String((await getCase(t.db.knex, id))!.version);
const confirmUrl = (body: string) => /action="(\/cases\/import\/[^"]+\/confirm)"/.exec(body)?.[1];

describe('the round trip', () => {
  it('a viewer is refused the upload form and the upload (403), and nothing is read', async () => {
    const vera = new Agent(app, '10.3.0.1');
    await vera.login('vera');
    expect((await vera.get('/cases/import')).statusCode).toBe(403);
    const res = await upload(vera, {
      filename: 'q.xlsx',
      bytes: Buffer.from('case_id,version,resolution_reason,resolution_note\n1,0,adjusted,x\n'),
    });
    expect(res.statusCode).toBe(403);
    expect((await getCase(t.db.knex, '1'))!.state).toBe('open');
    // The queue does not offer it either.
    expect((await vera.get('/cases')).body).not.toContain('href="/cases/import"');
  });

  it('finance: the preview says which cases, which reasons, which rows are refused and why; the confirm applies it once', async () => {
    const fiona = new Agent(app, '10.3.0.2');
    await fiona.login('fiona');
    expect((await fiona.get('/cases')).body).toContain('href="/cases/import"');
    const fill: Record<string, [string, string]> = {
      '3': ['adjusted', 'booked the fee difference'],
      '6': ['Written off', 'under the write-off limit'],
      '9': ['fixed', 'a reason nobody knows'],
      '12': ['cleared-by-recheck', 'claiming payrecon’s reason'],
      '15': ['duplicate', 'changed after the export'],
      '18': ['adjusted', 'resolved by someone else meanwhile'],
      '21': ['adjusted', ''],
    };
    const bytes = await filledExport(fiona, '?code=FEE', fill, [['999999', '0', 'adjusted', 'no such case']]);
    // After the export: 15 is assigned (a new version), 18 is resolved by a colleague.
    const fred = new Agent(app, '10.3.0.3');
    await fred.login('fred');
    await fred.post('/cases/15/assign', { assignee: 'fred', version: await version('15') });
    await fred.post('/cases/18/resolve', { reason: 'adjusted', note: 'done', version: await version('18') });

    const preview = await upload(fiona, { filename: 'queue.xlsx', bytes });
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain('Preview: 2 cases to resolve');
    expect(preview.body).toContain('6 rows refused');
    expect(preview.body).toContain('written-off');
    const refused = (id: string) => new RegExp(`<a href="/cases/${id}">${id}</a></td>\\s*<td>([^<]*)</td>`).exec(preview.body)?.[1];
    expect(refused('9')).toContain('unknown reason &quot;fixed&quot;');
    expect(refused('12')).toContain('not permitted: cleared-by-recheck is payrecon');
    expect(refused('15')).toContain('changed since the export (now open, assigned to fred)');
    expect(refused('18')).toContain('already resolved (adjusted)');
    expect(refused('21')).toContain('no resolution note');
    expect(preview.body).toMatch(/<td class="num">\d+<\/td>\s*<td class="num">999999<\/td>\s*<td>unknown case &quot;999999&quot;/);
    // Nothing is written by the preview.
    expect((await getCase(t.db.knex, '3'))!.state).toBe('open');

    const url = confirmUrl(preview.body)!;
    expect((await fiona.post(url, {}, { csrf: null })).statusCode).toBe(403);
    expect((await fred.post(url, {})).statusCode).toBe(409); // another user's preview
    const done = await fiona.post(url, {});
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('2 cases resolved');
    expect(done.body).toContain('<a href="/cases/3">#3</a>');
    expect(await getCase(t.db.knex, '3')).toMatchObject({ state: 'resolved', resolution: 'adjusted' });
    expect(await getCase(t.db.knex, '6')).toMatchObject({ state: 'resolved', resolution: 'written-off' });
    const audit = (await caseHistory(t.db.knex, '3')).filter((e) => e.toState === 'resolved');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: 'console:fiona', note: 'booked the fee difference', reason: 'adjusted' });
    for (const id of ['9', '12', '21']) expect((await getCase(t.db.knex, id))!.state, id).toBe('open');
    // A second confirm (a double click) applies nothing.
    const again = await fiona.post(url, {});
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('already applied');
    expect((await caseHistory(t.db.knex, '3')).filter((e) => e.toState === 'resolved')).toHaveLength(1);
  });

  it('a case changed between the preview and the confirm is refused at the confirm; the others are resolved', async () => {
    const fiona = new Agent(app, '10.3.0.4');
    await fiona.login('fiona');
    const bytes = await filledExport(fiona, '?code=AMOUNT', { '1': ['adjusted', 'ok'], '4': ['duplicate', 'same as 1'] });
    const preview = await upload(fiona, { filename: 'q.xlsx', bytes });
    expect(preview.body).toContain('Preview: 2 cases to resolve');
    await fiona.post('/cases/4/acknowledge', { version: await version('4') });
    const done = await fiona.post(confirmUrl(preview.body)!, {});
    expect(done.body).toContain('1 case resolved');
    expect(done.body).toContain('case 4</a>: changed since the export (now acknowledged)');
    expect((await getCase(t.db.knex, '4'))!.state).toBe('acknowledged');
    expect((await getCase(t.db.knex, '1'))!.state).toBe('resolved');
  });

  it('the CSV of cases list --csv, edited the same way, is accepted', async () => {
    const fiona = new Agent(app, '10.3.0.5');
    await fiona.login('fiona');
    // As `payrecon cases list --csv` writes it (BOM, CRLF, quoting), the resolution columns filled in.
    const row = (id: string, version: string, reason: string, note: string) =>
      EXPORT_COLUMNS.map((c) =>
        c === 'case_id' ? id : c === 'version' ? version : c === 'resolution_reason' ? reason : c === 'resolution_note' ? note : '',
      );
    const csv =
      '\uFEFF' +
      [EXPORT_COLUMNS, row('7', await version('7'), 'false-positive', 'rounding, "as agreed"'), row('10', await version('10'), '', '')]
        .map((r) => encodeCsvRecord(r))
        .join('');
    const preview = await upload(fiona, { filename: 'queue.csv', bytes: Buffer.from(csv) });
    expect(preview.statusCode).toBe(200);
    expect(preview.body).toContain('1 case to resolve');
    expect(preview.body).toContain('1 row with no resolution left as they are');
    expect((await fiona.post(confirmUrl(preview.body)!, {})).statusCode).toBe(200);
    expect(await getCase(t.db.knex, '7')).toMatchObject({ state: 'resolved', resolution: 'false-positive' });
  });

  it('refuses an upload without the CSRF token, a malformed file, a file without the columns, and one over the size limit', async () => {
    const fiona = new Agent(app, '10.3.0.6');
    await fiona.login('fiona');
    const good = await filledExport(fiona, '?code=STATUS', { '2': ['adjusted', 'x'] });
    const noToken = await upload(fiona, { filename: 'q.xlsx', bytes: good }, null);
    expect(noToken.statusCode).toBe(403);
    const wrongToken = await upload(fiona, { filename: 'q.xlsx', bytes: good }, 'x'.repeat(fiona.csrf!.length));
    expect(wrongToken.statusCode).toBe(403);
    // A zip that is not a workbook, and a workbook cut short.
    for (const bytes of [Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 7)]), good.subarray(0, good.length / 2)]) {
      const bad = await upload(fiona, { filename: 'q.xlsx', bytes });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('Nothing changed: not a workbook that could be read');
    }
    const columns = await upload(fiona, { filename: 'q.csv', bytes: Buffer.from('id,what\n2,adjusted\n') });
    expect(columns.statusCode).toBe(400);
    expect(columns.body).toContain('the first row has no case_id, version, resolution_reason, resolution_note columns');
    // A preview lists 500 rows of a table and says how many more.
    const unknown = Array.from({ length: 501 }, (_, i) => `${900_000 + i},0,adjusted,x\n`).join('');
    const long = await upload(fiona, {
      filename: 'q.csv',
      bytes: Buffer.from(`case_id,version,resolution_reason,resolution_note\n${unknown}`),
    });
    expect(long.statusCode).toBe(200);
    expect(long.body).toContain('501 rows refused');
    expect(long.body).toContain('and 1 more, not listed');
    expect(long.body).not.toContain('900500');
    const many = Buffer.from(`case_id,version,resolution_reason,resolution_note\n${'2,0,,\n'.repeat(20_001)}`);
    const tooMany = await upload(fiona, { filename: 'q.csv', bytes: many });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.body).toContain('more than 20,000 rows: export a narrower filter');
    const big = await upload(fiona, { filename: 'q.csv', bytes: Buffer.alloc(9 * 1024 * 1024, 0x41) });
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain('larger than 8 MB');
    expect((await getCase(t.db.knex, '2'))!.state).toBe('open');
    // A form post of the upload route without a file.
    expect((await fiona.post('/cases/import', { file: 'x' })).statusCode).toBe(400);
  });
});
