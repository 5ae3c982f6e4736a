import pino, { type Logger, type DestinationStream } from 'pino';
import { textStream } from './text-stream.ts';
import { scrub } from '../config/redact.ts';
import { sanitizeForTerminal } from './terminal.ts';
import { summariseRepeats } from './repeats.ts';

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

export type LogFormat = 'auto' | 'json' | 'text';

export interface LoggerOptions {
  /** Unset: warn on a terminal (only what needs a person), info otherwise. */
  level?: string;
  /** auto: text on a terminal, JSON lines otherwise. */
  format?: LogFormat;
  destination?: DestinationStream;
  /** Whether stderr is a terminal (tests pass it). */
  tty?: boolean;
  /** Secret values scrubbed from every line (keys are redacted by name besides). */
  secrets?: readonly string[];
  /** Identical warnings after the first are counted and summarised once per window (0: every line). */
  repeatWindowMs?: number;
}

/** One summary line a minute for a warning that repeats. */
export const REPEAT_WINDOW_MS = 60_000;

/**
 * The one root logger, on stderr so stdout stays for tables and --json output. At a terminal it
 * writes readable warnings and errors between the tables; otherwise (cron, containers, pipes) JSON
 * lines at info, for log collectors. LOG_LEVEL and LOG_FORMAT override either choice.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const tty = options.tty ?? Boolean(process.stderr.isTTY);
  const format = options.format && options.format !== 'auto' ? options.format : tty ? 'text' : 'json';
  const secrets = options.secrets ?? [];
  return pino(
    {
      level: options.level ?? (tty ? 'warn' : 'info'),
      base: { app: 'payrecon' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // Keys are redacted above; a secret inside a message or an error text (a provider echoing the key) is
      // scrubbed here. Log lines reach terminals too: JSON escapes C0 controls but not C1 or bidi overrides.
      hooks: {
        streamWrite: (line: string) => sanitizeForTerminal(secrets.length ? scrub(line, secrets) : line),
        logMethod: summariseRepeats(options.repeatWindowMs ?? REPEAT_WINDOW_MS),
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? (format === 'text' ? textStream() : pino.destination({ fd: 2, sync: true })),
  );
}

/** A silent logger for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });
