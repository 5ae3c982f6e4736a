import { describe, expect, it } from 'vitest';
import { isAttachedCsv } from '../src/report/email/content.ts';
import { REPORT_FILES } from '../src/report/manifest.ts';
import { REPORT_TABLES, SUMMARY_TABLES, WORKBOOK_TABS } from '../src/report/report-tables.ts';

describe('the index of report tables', () => {
  it('lists every CSV file of a version, in manifest order', () => {
    expect(REPORT_TABLES.map((t) => `${t.name}.csv`)).toEqual([...REPORT_FILES]);
  });

  it('says which tables the e-mail shows in its body: the summary tables, in their order', () => {
    const body = REPORT_TABLES.filter((t) => t.email === 'body').map((t) => t.name);
    expect(body).toEqual(SUMMARY_TABLES.map((s) => s.name));
  });

  it.each(REPORT_TABLES.map((t) => [t.name, t] as const))('%s: attached to the e-mail exactly when the index says so', (name, t) => {
    expect(isAttachedCsv(`${name}.csv`)).toBe(t.email === 'attached');
  });

  it('gives each table a purpose, and each sheet one table and a name a tab can hold', () => {
    for (const t of REPORT_TABLES) expect(t.purpose, t.name).not.toBe('');
    const sheets = REPORT_TABLES.flatMap((t) => (t.sheet ? [t.sheet] : []));
    expect(new Set(sheets).size).toBe(sheets.length);
    for (const s of sheets) expect(s.length, s).toBeLessThanOrEqual(31);
  });

  it("orders only the index's sheets among the workbook's tabs, each once, money and what needs a person first", () => {
    const sheets = new Set(REPORT_TABLES.map((t) => t.sheet));
    for (const tab of WORKBOOK_TABS) expect(sheets.has(tab), tab).toBe(true);
    expect(new Set(WORKBOOK_TABS).size).toBe(WORKBOOK_TABS.length);
    expect(WORKBOOK_TABS.slice(0, 4)).toEqual(['Summary', 'Journal', 'Trial balance', 'Mismatches']);
  });
});
