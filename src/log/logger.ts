import pino, { type Logger, type DestinationStream } from 'pino';

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
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { app: 'payrecon' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** A silent logger for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });
