// Entry of the webhook receiver (`node dist/jobs/webhook.js [bind-address]`, default 127.0.0.1;
// 0.0.0.0 in a container): listens on WEBHOOK_PORT until SIGTERM/SIGINT. Nothing imports this file.
import { runJobEntry } from '../src/runtime/job-entry.ts';
import { serveWebhooksJob } from '../src/services/webhook.ts';

await runJobEntry(() => serveWebhooksJob({ host: process.argv[2] }));
