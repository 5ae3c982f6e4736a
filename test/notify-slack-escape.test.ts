// Provider and merchant text inside a Slack-compatible alert: shown as typed, never a channel ping or a disguised link.
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { alertsForReconcileRun } from '../src/notify/alert-builders.ts';
import { alertChannelsFromConfig, deliverPendingAlerts } from '../src/notify/deliver-alerts.ts';
import { raiseAlert } from '../src/notify/raise-alert.ts';
import { compareOrder } from '../src/recon/compare.ts';
import { defaultPolicy } from '../src/recon/policy.ts';
import type { LocalOrder } from '../src/recon/types.ts';

const HOSTILE_STATUS = '<!channel> URGENT <https://evil.example/login|Re-authenticate here>';
const HOSTILE_REF = 'm-<@U0ADMIN>&co';
const NOW = new Date('2026-11-21T06:00:00Z');

describe('Slack alert escaping', () => {
  let t: TestDatabase;
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      bodies.push(data);
      res.writeHead(200).end('ok');
    });
  });

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    t = await createTestDatabase('notify_slack_escape', {
      env: { ALERT_WEBHOOK_URL: `http://127.0.0.1:${port}/services/hook`, NOTIFY_TIMEOUT_MS: '2000' },
    });
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await t?.drop();
  });

  it('a provider status of <!channel> and a <url|label> link reaches the receiver escaped in text, header and section', async () => {
    const local: LocalOrder = {
      direction: 'payment',
      merchantRef: HOSTILE_REF,
      transactionRef: 't-1',
      currency: 'NGN',
      method: 'TRANSFER',
      amount: '1000.00',
      paidAmount: '1000.00',
      fee: '15',
      utr: null,
      bankCode: null,
      status: 'Success',
      category: 'success',
      createdAt: new Date(NOW.getTime() - 3_600_000),
      checkCount: 0,
    };
    const result = compareOrder(
      local,
      {
        kind: 'found',
        order: {
          merchantRef: HOSTILE_REF,
          transactionRef: 't-1',
          currency: 'NGN',
          method: 'TRANSFER',
          amount: '1000',
          paidAmount: '1000',
          fee: '15',
          status: HOSTILE_STATUS,
          category: 'unknown',
        },
      },
      defaultPolicy(),
      NOW,
    );
    expect(result.verdict).toBe('mismatch');
    expect(result.reason).toContain(HOSTILE_STATUS);
    const [input] = alertsForReconcileRun({ items: [{ ...local, ...result }] });
    await raiseAlert(t.db, input, { now: NOW });
    expect((await deliverPendingAlerts(t.db, alertChannelsFromConfig(t.config), NOW)).failed).toEqual([]);

    expect(bodies).toHaveLength(1);
    const message = JSON.parse(bodies[0]) as { text: string; blocks: { text: { text: string } }[] };
    const texts = [message.text, ...message.blocks.map((b) => b.text.text)];
    for (const text of texts) expect(text).not.toMatch(/[<>]/);
    const section = message.blocks[1].text.text;
    expect(section).toContain('&lt;!channel&gt; URGENT &lt;https://evil.example/login|Re-authenticate here&gt;');
    expect(section).toContain('m-&lt;@U0ADMIN&gt;&amp;co');
  });
});
