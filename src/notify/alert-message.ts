import type { AlertRecord } from '../db/alerts.ts';
import type { MailMessage } from './mailer.ts';
import type { SlackMessage } from './webhook.ts';

/** Payload shape the builders produce; any other payload is shown as JSON. */
interface KnownPayload {
  summary?: string;
  counts?: Record<string, number>;
  orders?: { merchantRef: string; transactionRef: string; codes: string[]; reason: string }[];
}

function lines(alert: Pick<AlertRecord, 'title' | 'payload' | 'run_id'>): string[] {
  const p = (alert.payload ?? {}) as KnownPayload;
  const out: string[] = [];
  if (p.summary) out.push(p.summary);
  if (p.counts && Object.keys(p.counts).length) {
    out.push(
      `Counts: ${Object.entries(p.counts)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
  }
  if (p.orders?.length) {
    out.push('First orders:');
    for (const o of p.orders) out.push(`• ${o.merchantRef} / ${o.transactionRef} [${o.codes.join(' ')}] ${o.reason}`);
  }
  if (!p.summary && !p.counts && !p.orders) out.push(JSON.stringify(alert.payload, null, 2));
  if (alert.run_id) out.push(`Run ${alert.run_id}`);
  return out;
}

/** Slack-compatible: text for notifications and clients without blocks, blocks for the detail. */
export function slackMessage(alert: Pick<AlertRecord, 'title' | 'payload' | 'run_id'>): SlackMessage {
  const body = lines(alert).join('\n');
  return {
    text: `payrecon: ${alert.title}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `payrecon: ${alert.title}`.slice(0, 150) } },
      // Slack caps a section's text at 3000 characters.
      { type: 'section', text: { type: 'mrkdwn', text: body.slice(0, 2900) } },
    ],
  };
}

export function alertMail(
  alert: Pick<AlertRecord, 'id' | 'title' | 'payload' | 'run_id'>,
  from: string,
  to: readonly string[],
): MailMessage {
  const domain = from.split('@')[1] || 'payrecon.invalid';
  return {
    from,
    to,
    subject: `[payrecon alert] ${alert.title}`,
    text: `${lines(alert).join('\n')}\n`,
    // One id per alert row: a retry after a crash is recognisable as the same mail.
    messageId: `<payrecon.alert.${alert.id}@${domain}>`,
  };
}
