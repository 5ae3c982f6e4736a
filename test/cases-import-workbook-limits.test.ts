/**
 * Issue 35, items 3 and 4: an uploaded workbook is read as a stream before it is loaded. A zip whose
 * directory claims small sizes but inflates to far more is refused at the byte limit; a sheet past the
 * row cap is refused at the cap: the reading stops there, shown by a tail after the cap that a whole
 * load would have choked on.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { IMPORT_MAX_ROWS, readImportFile } from '../src/cases/import-file.ts';

interface Entry {
  name: string;
  data: Buffer;
  /** What the directory claims the file unpacks to (default: the truth). */
  claimedSize?: number;
}

/** A zip of deflated entries, built by hand so its declared sizes can lie. */
function zip(entries: Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const packed = zlib.deflateRawSync(e.data);
    const size = e.claimedSize ?? e.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Cases" sheetId="1" r:id="rId1"/></sheets></workbook>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`;

const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const HEADER = `<row r="1">${cell('A1', 'case id')}${cell('B1', 'version')}${cell('C1', 'resolution reason')}${cell('D1', 'resolution note')}</row>`;
const row = (n: number) =>
  `<row r="${n}">${cell(`A${n}`, String(n))}${cell(`B${n}`, '1')}${cell(`C${n}`, 'other')}${cell(`D${n}`, 'x')}</row>`;

function workbook(sheetXml: string, claimedSheetSize?: number): Buffer {
  return zip([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', data: Buffer.from(RELS) },
    { name: 'xl/workbook.xml', data: Buffer.from(WORKBOOK) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(WORKBOOK_RELS) },
    { name: 'xl/worksheets/sheet1.xml', data: Buffer.from(sheetXml), claimedSize: claimedSheetSize },
  ]);
}
const sheet = (rows: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`;

describe('uploaded workbook limits', () => {
  it('the hand-built workbook is one the reader takes (the fixture is sound)', async () => {
    const rows = await readImportFile(workbook(sheet(HEADER + row(2) + row(3))));
    expect(rows.map((r) => r.caseId)).toEqual(['2', '3']);
  });

  it('a zip claiming small sizes that inflates past the limit is refused at the limit', async () => {
    // 64 MB of one character packs to about 64 KB; the directory says 1 KB.
    const bomb = workbook(sheet(HEADER) + ' '.repeat(64 * 1024 * 1024), 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(readImportFile(bomb)).rejects.toThrow(/the workbook unpacks to more than 48 MB/);
  });

  it('a sheet past the row cap is refused at the cap, without reading what follows', async () => {
    const rows: string[] = [HEADER];
    for (let n = 2; n <= IMPORT_MAX_ROWS + 2; n++) rows.push(row(n));
    // After the cap, XML no parser would take: a whole load fails on it, a reader that stops does not see it.
    const file = workbook(`${sheet(rows.join('')).replace('</sheetData></worksheet>', '')}<row r="99999"><c r="A1"><v>&undefined;</v></c>`);
    await expect(readImportFile(file)).rejects.toThrow(`more than ${IMPORT_MAX_ROWS.toLocaleString('en-US')} rows`);
  });

  it('exactly the cap is accepted (the header does not count)', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Cases');
    ws.addRow(['case id', 'version', 'resolution reason', 'resolution note']);
    for (let n = 1; n <= IMPORT_MAX_ROWS; n++) ws.addRow([String(n), '1', 'other', 'x']);
    const bytes = Buffer.from(await wb.xlsx.writeBuffer());
    expect(await readImportFile(bytes)).toHaveLength(IMPORT_MAX_ROWS);
  }, 120_000);
});
