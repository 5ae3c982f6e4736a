import type { DestinationStream } from 'pino';
import { sanitizeForTerminal } from './terminal.ts';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
// Fields every line carries; a person at a terminal does not need them repeated.
const QUIET = new Set(['level', 'time', 'app', 'msg', 'pid', 'hostname', 'invocation']);

/**
 * Log lines for a person at a terminal: "payrecon warn: message (key=value, …)" on stderr.
 * pino has already redacted and scrubbed secrets in the JSON this receives.
 */
export function textStream(out: NodeJS.WritableStream = process.stderr): DestinationStream {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const fields = Object.entries(entry)
        .filter(([k]) => !QUIET.has(k))
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
      const level = LEVELS[entry.level as number] ?? String(entry.level);
      // Parsing the JSON turned escaped control characters back into live ones: show them as text again.
      out.write(
        sanitizeForTerminal(`payrecon ${level}: ${String(entry.msg ?? '')}${fields.length ? ` (${fields.join(', ')})` : ''}`) + '\n',
      );
    },
  };
}
