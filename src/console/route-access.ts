import type { FastifyInstance } from 'fastify';
import type { Access } from './http-kit.ts';

/** A registered route and what it declared: the table the every-route test walks (test/console-routes.test.ts). */
export interface RouteAccess {
  readonly method: string;
  readonly url: string;
  readonly access: Access;
  readonly csrf: 'upload' | undefined;
}

const ACCESS: ReadonlySet<string> = new Set<Access>(['public', 'session', 'read', 'work-cases', 'rerun', 'manage-users']);
const TABLES = new WeakMap<FastifyInstance, RouteAccess[]>();

/**
 * Deny by default: a route registered without a declared access (or with one not in the list) is
 * refused at registration, so the console does not start, and the error names the route. Before,
 * a missing access was treated as public and a forgotten line served a page to anyone.
 */
export function denyByDefault(app: FastifyInstance): void {
  const table: RouteAccess[] = [];
  TABLES.set(app, table);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    for (const method of [route.method].flat()) {
      if (access === undefined || !ACCESS.has(access))
        throw new Error(
          `console route ${method} ${route.url} declares no access: give it { config: { access: ... } }, one of ${[...ACCESS].join(', ')}`,
        );
      table.push({ method, url: route.url, access, csrf: route.config?.csrf });
    }
  });
}

/** Every route of the app as registered, with its declared access. */
export function routeTable(app: FastifyInstance): readonly RouteAccess[] {
  return TABLES.get(app) ?? [];
}
