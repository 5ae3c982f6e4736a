import { MAIN_NS, REL_NS, XML_DECLARATION, xmlAttr } from './xml.ts';

/**
 * The package parts of an xlsx file besides its sheets and styles (ECMA-376 Part 2, Open
 * Packaging Conventions): content types, relationships, the workbook's sheet list, and the
 * document properties.
 */

const CT = 'application/vnd.openxmlformats-officedocument';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/**
 * Written first, before the sheets are known: every `.xml` part is a worksheet by default, and
 * the few others are named.
 */
export const CONTENT_TYPES =
  `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
  `<Default Extension="xml" ContentType="${CT}.spreadsheetml.worksheet+xml"/>` +
  `<Override PartName="/xl/workbook.xml" ContentType="${CT}.spreadsheetml.sheet.main+xml"/>` +
  `<Override PartName="/xl/styles.xml" ContentType="${CT}.spreadsheetml.styles+xml"/>` +
  `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
  '</Types>';

export const ROOT_RELS =
  `${XML_DECLARATION}<Relationships xmlns="${PKG_REL}">` +
  `<Relationship Id="rId1" Type="${DOC_REL}/officeDocument" Target="xl/workbook.xml"/>` +
  '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
  '</Relationships>';

export function coreProperties(creator: string, created: Date): string {
  const when = created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return (
    `${XML_DECLARATION}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `<dc:creator>${xmlAttr(creator)}</dc:creator><cp:lastModifiedBy>${xmlAttr(creator)}</cp:lastModifiedBy>` +
    `<dcterms:created xsi:type="dcterms:W3CDTF">${when}</dcterms:created>` +
    `<dcterms:modified xsi:type="dcterms:W3CDTF">${when}</dcterms:modified></cp:coreProperties>`
  );
}

/** A sheet as the workbook lists it: tab name, part path under xl/, autofilter range if any. */
export interface SheetPart {
  readonly name: string;
  readonly part: string;
  readonly autoFilter: string | null;
  /** The header row, repeated on every printed page; none for a sheet without one. */
  readonly headerRow?: number;
  /**
   * What is printed (A1:AE3000): the table's own columns, so a long reason running on into the empty
   * cells to its right does not print as pages of text fragments.
   */
  readonly printArea?: string;
}

/** The autofilter range as the defined name spreadsheets keep it under: 'Items'!$A$1:$X$9. */
const absolute = (name: string, ref: string) => `'${name.replaceAll("'", "''")}'!${ref.replace(/([A-Z]+)(\d+)/g, '$$$1$$$2')}`;

export function workbookXml(sheets: readonly SheetPart[]): string {
  const list = sheets.map((s, i) => `<sheet name="${xmlAttr(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
  const sheetRef = (name: string) => `'${name.replaceAll("'", "''")}'`;
  const filters = sheets.flatMap((s, i) => [
    ...(s.autoFilter
      ? [
          `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">${xmlAttr(absolute(s.name, s.autoFilter))}</definedName>`,
        ]
      : []),
    ...(s.printArea
      ? [`<definedName name="_xlnm.Print_Area" localSheetId="${i}">${xmlAttr(absolute(s.name, s.printArea))}</definedName>`]
      : []),
    ...(s.headerRow
      ? [
          `<definedName name="_xlnm.Print_Titles" localSheetId="${i}">${xmlAttr(`${sheetRef(s.name)}!$${s.headerRow}:$${s.headerRow}`)}</definedName>`,
        ]
      : []),
  ]);
  return (
    `${XML_DECLARATION}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    `<bookViews><workbookView activeTab="0"/></bookViews><sheets>${list}</sheets>` +
    (filters.length ? `<definedNames>${filters.join('')}</definedNames>` : '') +
    '</workbook>'
  );
}

export function workbookRels(sheets: readonly SheetPart[]): string {
  const rels = sheets.map((s, i) => `<Relationship Id="rId${i + 1}" Type="${DOC_REL}/worksheet" Target="${s.part}"/>`);
  rels.push(`<Relationship Id="rId${sheets.length + 1}" Type="${DOC_REL}/styles" Target="styles.xml"/>`);
  return `${XML_DECLARATION}<Relationships xmlns="${PKG_REL}">${rels.join('')}</Relationships>`;
}
