const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * Decimal text for people: "-1234567.50" -> "-1,234,567.50". The one thousands-separator rule of
 * the console, report.html, the e-mail and amounts; string work only, so no float on the way.
 * Anything that is not plain decimal text is left as it is.
 */
export function groupDigits(text: string): string {
  if (!DECIMAL_TEXT.test(text)) return text;
  const [whole, fraction] = text.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  return `${sign}${whole.replace('-', '').replace(/\B(?=(\d{3})+$)/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
}
