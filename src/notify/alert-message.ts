import type { AlertRecord } from '../db/alerts.ts';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';
import type { MailMessage } from './mailer.ts';
import type { SlackMessage } from './webhook.ts';

/** Payload shape the builders produce; any other payload is shown as JSON. */
interface KnownPayload {
  summary?: string;
  counts?: Record<string, number>;
  orders?: { merchantRef: string; transactionRef: string; codes: string[]; reason: string }[];
}

/** What a message is made of; account_id absent or "default": one account, not named. */
type Shown = Pick<AlertRecord, 'title' | 'payload' | 'run_id'> & { account_id?: string };

function lines(alert: Shown): string[] {
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
  if (alert.account_id && alert.account_id !== DEFAULT_ACCOUNT_ID) out.push(`Account ${alert.account_id}`);
  return out;
}

/**
 * Slack-compatible: text for notifications and clients without blocks, blocks for the detail.
 * Titles and payloads carry provider and merchant text (statuses, refs, reasons): every field is
 * escaped, so `<!channel>` or `<https://…|label>` there is shown as typed, never a ping or a link.
 */
export function slackMessage(alert: Shown): SlackMessage {
  const title = `payrecon: ${alert.title}`;
  return {
    text: slackEscape(title),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: slackClip(title, 150) } },
      // Slack caps a section's text at 3000 characters.
      { type: 'section', text: { type: 'mrkdwn', text: slackClip(lines(alert).join('\n'), 2900) } },
    ],
  };
}

/** Slack's three control characters as the entities it documents (api.slack.com/reference/surfaces/formatting#escaping). */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escaped, then cut to `max` characters without leaving half an entity at the end. */
function slackClip(text: string, max: number): string {
  return slackEscape(text)
    .slice(0, max)
    .replace(/&[a-z]{0,3}$/, '');
}

export function alertMail(alert: Shown & Pick<AlertRecord, 'id'>, from: string, to: readonly string[]): MailMessage {
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
