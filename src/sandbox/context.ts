import type { ServerResponse } from 'node:http';
import type { Logger } from '../log/logger.ts';
import type { SigningScheme } from '../provider/signing.ts';
import type { FaultRegistry } from './faults.ts';
import type { RequestStats } from './request-stats.ts';
import type { RateWindow } from './rate-window.ts';
import type { SandboxState } from './state.ts';
import type { WebhookDispatcher } from './webhooks.ts';
import type { WalletMovements } from './wallet-movements.ts';

/** What the request handlers share: one per running sandbox. */
export interface SandboxContext {
  baseUrl: string;
  state: SandboxState;
  faults: FaultRegistry;
  webhooks: WebhookDispatcher;
  stats: RequestStats;
  /** The provider's own per-merchant rate limit (off by default) and the measurement of arrivals. */
  rate: RateWindow;
  secrets: ReadonlyMap<string, string>;
  scheme: SigningScheme;
  timestampWindowSec: number;
  logger: Logger;
  /** Responses a timeout fault keeps open; closed when the sandbox closes. */
  held: Set<ServerResponse>;
  /** Top-ups and withdrawals moved through the control interface, for their statements. */
  movements: WalletMovements;
  /** Values `reset` returns to. */
  initial: {
    webhookUrl?: string;
    latencyMs: number;
    rateLimitPerSec: number | null;
    /** Merchants given their own rate limit at start. */
    merchantRateLimits: ReadonlyMap<string, number | null>;
  };
}
