import pino, { type Logger, type DestinationStream } from 'pino';
import { scrub } from '../config/redact.ts';
import { sanitizeForTerminal } from './terminal.ts';

export type { Logger };

/** Keys whose values never reach a log line, wherever they sit in the object. */
const REDACT_PATHS = [
  'secret',
  '*.secret',
  'password',
  '*.password',
  'PROVIDER_SECRET',
  '*.PROVIDER_SECRET',
  'SMTP_URL',
  '*.SMTP_URL',
  'ALERT_WEBHOOK_URL',
  '*.ALERT_WEBHOOK_URL',
  'headers.Signature',
  '*.headers.Signature',
  'headers.signature',
  '*.headers.signature',
];

/** The one root logger: JSON lines on stderr so stdout stays for tables and --json output. */
export function createLogger(options: { level?: string; destination?: DestinationStream; secrets?: readonly string[] } = {}): Logger {
  const secrets = options.secrets ?? [];
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { app: 'payrecon' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Keys are redacted above; a secret inside a message or an error text (a provider echoing the key) is
      // scrubbed here. Log lines reach terminals too: JSON escapes C0 controls but not C1 or bidi overrides.
      hooks: { streamWrite: (line: string) => sanitizeForTerminal(secrets.length ? scrub(line, secrets) : line) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** A silent logger for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });
