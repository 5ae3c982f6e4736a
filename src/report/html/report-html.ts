import { Html, html } from '../../html/html.ts';
import type { RenderedChart } from '../charts/day-charts.ts';
import { groupDigits } from '../../money/group-digits.ts';
import type { Table } from '../../tabular/table.ts';
import { tableHtml } from './table-html.ts';

/** One version of the day, as the versions list shows it. */
export interface VersionLine {
  version: number;
  /** Local ISO time the version was written. */
  createdAt: string;
  headline: string | null;
}

/** One file of the version and what a reader uses it for. */
export interface FileLine {
  name: string;
  purpose: string;
  rows: number | null;
}

export interface ReportHtmlInput {
  date: string;
  /** The account the version is of, named only when several accounts are configured. */
  account?: string;
  timezone: string;
  version: number;
  /** Local ISO time this version was written. */
  createdAt: string;
  headline: string;
  /** Written before the day was over: every figure may still move. */
  partial: boolean;
  charts: readonly RenderedChart[];
  /** Summary tables, in reading order. */
  tables: readonly Table[];
  /** The day's mismatches, the first rows only (the full list is mismatches.csv). */
  mismatches: Table;
  mismatchCount: number;
  /** Every version of the day, this one included. */
  versions: readonly VersionLine[];
  files: readonly FileLine[];
}

const STYLE = `
body{font-family:'DejaVu Sans',Arial,sans-serif;color:#1d2330;margin:24px auto;max-width:1180px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d4dc;padding-bottom:4px}
h3{font-size:14px;margin:18px 0 6px}.headline{font-size:17px;font-weight:600;margin:6px 0}.meta{color:#555;font-size:13px}
.partial{background:#fff4e0;border:1px solid #f0c070;padding:6px 10px;display:inline-block}
figure{margin:12px 0 20px}figure svg{max-width:100%;height:auto}
.charts{display:flex;flex-wrap:wrap;gap:8px 32px}.scroll{overflow-x:auto}`;

/** report.html: self-contained (styles and charts inline, no script, nothing fetched). */
/** "2026-11-23T06:00:00.000+05:30" -> "2026-11-23 06:00:00 +05:30". */
const readableTime = (iso: string) =>
  iso
    .replace('T', ' ')
    .replace(/\.\d{3}(?=[+-Z])/, ' ')
    .replace(/ Z$/, ' UTC');

export function reportHtml(input: ReportHtmlInput, formatTime: (ms: number) => string): string {
  const title = `Reconciliation ${input.date}, version ${input.version}${input.account !== undefined ? `, account ${input.account}` : ''}`;
  const previous = input.versions.filter((v) => v.version !== input.version);
  // The charts' SVG is rendered by vega from our own data, and is markup by design.
  // The templates are the page's markup as written: prettier would reflow the HTML inside them.
  // prettier-ignore
  const charts = input.charts.map(
    (c) => html`<figure data-chart="${c.name}" aria-label="${c.title}">\n${new Html(c.svg)}\n</figure>\n`,
  );
  // prettier-ignore
  const tables = input.tables.map((t) => html`<h3 id="${t.name}">${t.title}</h3>\n<div class="scroll">${tableHtml(t, formatTime)}</div>\n`);
  const count = input.mismatchCount;
  // prettier-ignore
  const mismatchText =
    count === 0
      ? html`<p>No mismatches.</p>`
      : html`<p>${groupDigits(String(count))} orders${count > input.mismatches.rows.length ? `; the first ${input.mismatches.rows.length} here, all in mismatches.csv and the workbook` : ''}.</p>
<div class="scroll">${tableHtml(input.mismatches, formatTime)}</div>`;
  // prettier-ignore
  const versions = input.versions.map(
    (v) =>
      html`<tr><td style="padding:2px 8px;text-align:right">${v.version}${v.version === input.version ? ' (this one)' : ''}</td><td style="padding:2px 8px">${readableTime(v.createdAt)}</td><td style="padding:2px 8px">${v.headline ?? ''}</td></tr>\n`,
  );
  // prettier-ignore
  const files = input.files.map(
    (f) =>
      html`<tr><td style="padding:2px 8px"><a href="${encodeURIComponent(f.name)}"><code>${f.name}</code></a></td><td style="padding:2px 8px;text-align:right">${f.rows === null ? '' : groupDigits(String(f.rows))}</td><td style="padding:2px 8px">${f.purpose}</td></tr>\n`,
  );
  const earlier = previous.length ? `; ${previous.length === 1 ? 'one earlier version' : `${previous.length} earlier versions`} below` : '';
  // prettier-ignore
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<header>
<h1>${title}</h1>
<p class="headline">${input.headline}</p>
${input.partial ? html`<p class="partial">Written before the day was over: every figure may still change.</p>` : null}
<p class="meta">Business day ${input.date} in ${input.timezone}. Version ${input.version}, written ${readableTime(input.createdAt)}${earlier}.</p>
</header>
<section id="charts"><h2>The day in pictures</h2>
<div class="charts">
${charts}</div>
</section>
<section id="summary"><h2>Summary</h2>
${tables}</section>
<section id="mismatches"><h2>Mismatches</h2>
${mismatchText}
</section>
<section id="versions"><h2>Versions of this day</h2>
<table style="border-collapse:collapse;font-size:13px"><thead><tr><th style="padding:2px 8px">version</th><th style="padding:2px 8px;text-align:left">written</th><th style="padding:2px 8px;text-align:left">headline</th></tr></thead>
<tbody>${versions}</tbody></table>
</section>
<section id="files"><h2>Files of this version</h2>
<table style="border-collapse:collapse;font-size:13px"><thead><tr><th style="padding:2px 8px;text-align:left">file</th><th style="padding:2px 8px;text-align:right">rows</th><th style="padding:2px 8px;text-align:left">what it is for</th></tr></thead>
<tbody>${files}</tbody></table>
</section>
</body>
</html>
`.text;
}
