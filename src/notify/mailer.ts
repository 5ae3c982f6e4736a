import type { Readable } from 'node:stream';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config/config.ts';
import { secretValues } from '../config/redact.ts';
import { DeliveryError, describeError } from './errors.ts';

export interface MailAttachment {
  filename: string;
  /** Bytes or a stream (read once per send: build a fresh one for each attempt)… */
  content?: Buffer | string | Readable;
  /** …or a file nodemailer streams from disk. */
  path?: string;
  contentType?: string;
  /** Content-ID for an image the HTML shows inline (`<img src="cid:…">`). */
  cid?: string;
}

export interface MailMessage {
  from: string;
  to: readonly string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: readonly MailAttachment[];
  /** A fixed Message-ID (with angle brackets) so a repeated send is recognisable as the same mail. */
  messageId?: string;
}

export interface SendResult {
  messageId: string;
  accepted: string[];
  rejected: string[];
}

export interface Mailer {
  /** REPORT_EMAIL_FROM: sender of reports and alerts. */
  readonly from: string;
  /** REPORT_EMAIL_TO and ALERT_EMAIL_TO (empty when unset). */
  readonly reportTo: readonly string[];
  readonly alertTo: readonly string[];
  /** Resolves once the server accepted the message for at least one recipient; throws DeliveryError otherwise. */
  send(message: MailMessage): Promise<SendResult>;
  close(): void;
}

export interface MailerOptions {
  /** Connection, greeting and socket timeout; default config.NOTIFY_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Extra strings to scrub from errors, beyond the config's secrets. */
  secrets?: readonly string[];
}

/** A nodemailer SMTP transport for SMTP_URL; one connection per message, no pool to leak. */
export function createMailer(config: Config, opts: MailerOptions = {}): Mailer {
  if (!config.SMTP_URL) throw new Error('SMTP_URL is not set: e-mail delivery needs an SMTP server');
  const secrets = [...secretValues(config), ...(opts.secrets ?? [])];
  const timeout = opts.timeoutMs ?? config.NOTIFY_TIMEOUT_MS;
  const smtpUrl = config.SMTP_URL;
  // Loaded and connected on the first message: most runs send none, and nodemailer is about 15 MB.
  let transport: Transporter | undefined;
  const transportNow = async (): Promise<Transporter> => {
    const nodemailer = (await import('nodemailer')).default;
    // A batch job must not hang on a dead mail server: every phase has a short limit.
    transport ??= nodemailer.createTransport(smtpUrl, {
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      dnsTimeout: timeout,
    } as never);
    return transport;
  };
  return {
    from: config.REPORT_EMAIL_FROM,
    reportTo: config.REPORT_EMAIL_TO ?? [],
    alertTo: config.ALERT_EMAIL_TO ?? [],
    async send(message) {
      try {
        const info = await (
          await transportNow()
        ).sendMail({
          from: message.from,
          to: [...message.to],
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId: message.messageId,
          attachments: message.attachments?.map((a) => ({
            filename: a.filename,
            content: a.content,
            path: a.path,
            contentType: a.contentType,
            cid: a.cid,
          })),
        });
        const accepted = (info.accepted ?? []).map(String);
        const rejected = (info.rejected ?? []).map(String);
        if (accepted.length === 0) throw new Error(`every recipient was rejected: ${rejected.join(', ')}`);
        return { messageId: info.messageId, accepted, rejected };
      } catch (err) {
        throw new DeliveryError('smtp', describeError(err, secrets));
      }
    },
    close: () => transport?.close(),
  };
}
