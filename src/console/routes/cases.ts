import type { FastifyInstance } from 'fastify';
import type { ConsoleDeps } from '../http-kit.ts';
import { registerCaseQueueRoutes } from './case-queue.ts';
import { registerCasePageRoutes } from './case-page.ts';
import { registerCaseBulkRoutes } from './case-bulk.ts';

/** The cases area, by route group: the queue and its export, one case and its actions, bulk work. */
export function registerCaseRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  registerCaseQueueRoutes(app, deps);
  registerCasePageRoutes(app, deps);
  registerCaseBulkRoutes(app, deps);
}
