import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { CsvFile } from '../src/report/csv-file.ts';
import { businessView } from '../src/report/business-view.ts';

describe('CsvFile', () => {
  it('writes RFC 4180 CSV (CRLF, quotes for comma, quote, CR, LF) and reports rows, bytes and hash', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-csv-')), 'x.csv');
    const csv = new CsvFile(file, ['a', 'b']);
    await csv.write(['1,5', 'say "hi"']);
    await csv.write(['line\nbreak', 'cr\rhere']);
    await csv.write(['-12.50', 'ünï']);
    const result = await csv.close();
    const text = '\ufeffa,b\r\n"1,5","say ""hi"""\r\n"line\nbreak","cr\rhere"\r\n-12.50,ünï\r\n';
    const bytes = fs.readFileSync(file);
    expect(bytes.toString('utf8')).toBe(text);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(result).toEqual({ rows: 3, bytes: bytes.length, sha256, business_sha256: sha256 });
  });

  it('starts with a UTF-8 BOM and quotes fields holding a semicolon or a tab, the separators spreadsheets guess', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-csv-')), 'x.csv');
    const csv = new CsvFile(file, ['note', 'ifsc', 'arrow']);
    await csv.write(['no closing snapshot; roll-forward not checked', '022', 'INR → USDT']);
    await csv.write(['tab\there', '0001234', 'plain']);
    await csv.close();
    const bytes = fs.readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toBe(
      '\ufeffnote,ifsc,arrow\r\n"no closing snapshot; roll-forward not checked",022,INR → USDT\r\n"tab\there",0001234,plain\r\n',
    );
    // Read back as every reader here does: the BOM stripped, leading zeros kept as text.
    expect(parse(bytes, { columns: true, bom: true })).toEqual([
      { note: 'no closing snapshot; roll-forward not checked', ifsc: '022', arrow: 'INR → USDT' },
      { note: 'tab\there', ifsc: '0001234', arrow: 'plain' },
    ]);
  });

  it('hashes the business view beside the bytes: equal when only run ids and check times differ', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-csv-'));
    const header = ['run_id', 'verdict', 'checked_at'];
    const write = async (name: string, rows: string[][]) => {
      const csv = new CsvFile(path.join(dir, name), header, businessView(header));
      for (const r of rows) await csv.write(r);
      return csv.close();
    };
    const a = await write('a.csv', [['1', 'matched', '2024-05-01T10:00:00.000+00:00']]);
    const b = await write('b.csv', [['7', 'matched', '2024-05-03T11:00:00.000+00:00']]);
    const c = await write('c.csv', [['7', 'mismatch', '2024-05-03T11:00:00.000+00:00']]);
    expect(a.sha256).not.toBe(b.sha256);
    expect(a.business_sha256).toBe(b.business_sha256);
    expect(c.business_sha256).not.toBe(b.business_sha256);
    expect(a.business_sha256).toBe(createHash('sha256').update('verdict\r\nmatched\r\n').digest('hex'));
  });

  it('refuses to overwrite an existing file', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-csv-')), 'x.csv');
    fs.writeFileSync(file, 'keep');
    const csv = new CsvFile(file, ['a']);
    await expect(csv.close()).rejects.toThrow(/EEXIST/);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep');
  });

  it.each([
    {
      name: 'resolved reads as matched, with the local columns it overwrote',
      header: ['local_status', 'provider_status', 'local_fee', 'provider_fee', 'verdict', 'reason'],
      a: ['Initiated', 'Success', '', '1.00', 'resolved', 'now final'],
      b: ['Success', 'Success', '1.00', '1.00', 'matched', ''],
      same: true,
    },
    {
      name: 'a status that changed is content',
      header: ['local_status', 'provider_status', 'verdict'],
      a: ['Success', 'Success', 'matched'],
      b: ['Success', 'Failed', 'mismatch'],
      same: false,
    },
    {
      name: 'summary counts resolved as matched',
      header: ['section', 'orders', 'matched', 'resolved'],
      a: ['orders', '3', '1', '2'],
      b: ['orders', '3', '3', '0'],
      same: true,
    },
  ])('business view: $name', ({ header, a, b, same }) => {
    const view = businessView(header);
    if (same) expect(view(a)).toEqual(view(b));
    else expect(view(a)).not.toEqual(view(b));
  });
});
