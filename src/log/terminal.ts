/**
 * The terminal output layer: everything payrecon prints for a person goes through here, because
 * provider text (statuses, bank names, reasons) is in it and a terminal obeys escape sequences:
 * colours, clearing the screen, moving the cursor to paint "ALL RECONCILED OK" over the real result.
 *
 * Control characters are shown as `\uXXXX` text instead: visible to the operator, and inside JSON
 * output the same escape JSON uses, so `--json` stays valid and parses to the same value.
 */

/** C0 controls except tab and newline, DEL, C1 controls (0x9b is CSI), bidi embeddings, overrides and isolates. */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function sanitizeForTerminal(text: string): string {
  return text.replace(ACTIVE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Writes to stdout (tables, summaries, --json) through the sanitizer. */
export function printOut(text: string): void {
  process.stdout.write(sanitizeForTerminal(text));
}

/** Writes to stderr (the one-line failure messages) through the sanitizer. */
export function printErr(text: string): void {
  process.stderr.write(sanitizeForTerminal(text));
}
