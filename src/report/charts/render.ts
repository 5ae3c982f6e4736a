import { createRequire } from 'node:module';
import path from 'node:path';
import type { TopLevelSpec } from 'vega-lite';

/**
 * Charts without a browser: Vega-Lite compiled to Vega, rendered headless to SVG by vega's own
 * scenegraph (`renderer: 'none'`, no canvas), and SVG to PNG by resvg for e-mail clients that do
 * not show SVG. Deterministic: the same spec gives the same SVG and PNG bytes (no random ids, no
 * clock; resvg is given fixed font files, never the machine's font list).
 */

/** The font the charts name, shipped as a package so every machine renders the same glyphs. */
export const CHART_FONT = 'DejaVu Sans';

const fontDir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) => path.join(fontDir, f));

/**
 * The libraries, loaded on first use: a report draws its charts after its rows are written, and
 * loaded at start they held about 25 MB through the whole stream of a large day (peak RSS).
 */
let libraries: Promise<{
  vega: typeof import('vega');
  compile: typeof import('vega-lite').compile;
  Resvg: typeof import('@resvg/resvg-js').Resvg;
}> | null = null;
const chartLibraries = () =>
  (libraries ??= Promise.all([import('vega'), import('vega-lite'), import('@resvg/resvg-js')]).then(([vega, vegaLite, resvg]) => ({
    vega,
    compile: vegaLite.compile,
    Resvg: resvg.Resvg,
  })));

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, compile } = await chartLibraries();
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** PNG at twice the SVG's size (sharp on high-density screens). */
export async function renderPng(svg: string): Promise<Buffer> {
  const { Resvg } = await chartLibraries();
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    background: 'white',
    font: {
      loadSystemFonts: false,
      fontFiles: FONT_FILES,
      defaultFontFamily: CHART_FONT,
      sansSerifFamily: CHART_FONT,
    },
  });
  return resvg.render().asPng();
}
