import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { findUserByName } from '../db/console-users.ts';
import { resolveSession, startSession } from './auth/sessions.ts';
import { can } from './auth/roles.ts';
import { SESSION_COOKIE, cookieOptions, sameToken, sendPage, sessionPolicy, type ConsoleDeps } from './http-kit.ts';
import { CONSOLE_CSS } from './pages/style.ts';
import { html } from '../html/html.ts';
import { page } from './pages/layout.ts';
import { registerAuthRoutes } from './routes/auth.ts';
import { registerDayRoutes } from './routes/days.ts';
import { registerDownloadRoutes } from './routes/downloads.ts';
import { registerRerunRoutes } from './routes/reruns.ts';
import { registerJobRoutes } from './routes/jobs.ts';
import { registerUserRoutes } from './routes/users.ts';
import { registerCaseRoutes } from './routes/cases.ts';
import { registerCaseImportRoutes } from './routes/case-import.ts';
import { registerOrderRoutes } from './routes/orders.ts';
import { registerMovementRoutes } from './routes/movements.ts';
import { FAVICON_SVG } from './pages/favicon.ts';
import { denyByDefault } from './route-access.ts';
import { statusOf } from './error-status.ts';
import { errorOf } from '../domain/errors.ts';

function refuse(request: FastifyRequest, reply: FastifyReply, status: 401 | 403, message: string): FastifyReply {
  return sendPage(
    reply,
    status,
    page(
      { title: status === 401 ? 'Sign in required' : 'Not allowed', session: request.session },
      html`<h1>${status === 401 ? 'Sign in required' : 'Not allowed'}</h1>
        <p class="error">${message}</p>`,
    ),
  );
}

/** The peer is the configured proxy (an IPv4 peer may show as ::ffff:a.b.c.d on a dual-stack socket). */
function fromProxy(peer: string | undefined, trusted: string): boolean {
  return peer !== undefined && (peer === trusted || peer === `::ffff:${trusted}`);
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-real-ip'] as const;

/**
 * Behind a TLS proxy with no CONSOLE_TRUSTED_PROXY every client has the proxy's address, so the
 * sign-in throttle's per-address limit is shared by all of them. The first request that arrives with
 * forwarding headers says so, once, in the log.
 */
function warnOnForwardedRequests(app: FastifyInstance, deps: ConsoleDeps): void {
  let warned = false;
  app.addHook('onRequest', async (request) => {
    if (warned) return;
    const header = FORWARDING_HEADERS.find((h) => request.headers[h] !== undefined);
    if (!header) return;
    warned = true;
    deps.logger.warn(
      { header, peer: request.socket.remoteAddress },
      `requests arrive through a proxy (${header} header) but CONSOLE_TRUSTED_PROXY is not set: every client has the proxy's address, ` +
        "so one address's sign-in limit is shared by all of them; set CONSOLE_TRUSTED_PROXY to the proxy's address (docs/guides/console.md)",
    );
  });
}

export async function buildConsole(deps: ConsoleDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const trusted = config.CONSOLE_TRUSTED_PROXY;
  const app = Fastify({
    // Only the configured proxy may set the client address and scheme (X-Forwarded-For/-Proto).
    trustProxy: trusted ? [trusted] : false,
    bodyLimit: 64 * 1024,
    logger: false,
  });
  await app.register(cookie);
  await app.register(formbody);
  // Parts are read by the route that wants a file (readUpload), after the role check; others refuse multipart (no CSRF field).
  await app.register(multipart);
  app.decorateRequest('session', null);
  denyByDefault(app);
  const policy = sessionPolicy(config);
  if (!trusted) warnOnForwardedRequests(app, deps);

  app.addHook('onSend', async (_request, reply) => {
    // A route may set a stricter or report-specific policy (report.html shown inline).
    if (!reply.hasHeader('Content-Security-Policy'))
      reply.header(
        'Content-Security-Policy',
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
    reply.header('X-Frame-Options', 'DENY');
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store');
  });

  app.addHook('preHandler', async (request, reply) => {
    // No route: the not-found page, which shows nothing.
    if (request.is404) return;
    const access = request.routeOptions.config?.access;
    // Registration refuses a route without access (route-access.ts); should one slip past, it is closed.
    if (access === undefined) return refuse(request, reply, 403, 'This page declares no access.');
    if (access === 'public') return;
    const token = request.cookies[SESSION_COOKIE];
    let session = token ? await resolveSession(deps.db.knex, policy, token, deps.now()) : null;

    if (trusted && config.CONSOLE_PROXY_USER_HEADER && fromProxy(request.socket.remoteAddress, trusted)) {
      const named = request.headers[config.CONSOLE_PROXY_USER_HEADER.toLowerCase()];
      if (typeof named === 'string' && named) {
        if (!session || session.userName !== named) {
          const user = await findUserByName(deps.db.knex, named);
          if (!user || user.disabled) return refuse(request, reply, 403, 'The signed-in user has no enabled console account.');
          const started = await startSession(deps.db.knex, {
            userId: user.id,
            userName: user.name,
            role: user.role,
            address: request.ip,
            now: deps.now(),
            via: 'proxy',
          });
          reply.setCookie(SESSION_COOKIE, started.token, cookieOptions(request, config));
          session = started.session;
        }
      }
    }
    request.session = session;
    if (!session) {
      if (request.method === 'GET' || request.method === 'HEAD')
        return reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 302);
      return refuse(request, reply, 401, 'Your session has ended. Sign in again.');
    }
    if (access !== 'session' && !can(session.role, access)) {
      return refuse(request, reply, 403, `Your role (${session.role}) may not do this.`);
    }
    const uploadChecksItsOwn = request.routeOptions.config?.csrf === 'upload' && request.isMultipart();
    if (request.method !== 'GET' && request.method !== 'HEAD' && !uploadChecksItsOwn) {
      const sent = (request.body as Record<string, unknown> | undefined)?._csrf ?? request.headers['x-csrf-token'];
      if (!sameToken(sent, session.csrfToken))
        return refuse(request, reply, 403, 'The form was missing its security token or it was stale. Reload the page and try again.');
    }
  });

  // Fastify's own errors carry their status (413 body too large, 415, 400 bad form); any other is a 500.
  app.setErrorHandler((thrown: unknown, request, reply) => {
    const err = errorOf(thrown);
    const status = statusOf(thrown);
    if (status >= 500)
      deps.logger.error({ err: { message: err.message, stack: err.stack }, url: request.routeOptions.url }, 'console request failed');
    return sendPage(
      reply,
      status,
      page(
        { title: 'Error', session: request.session },
        html`<h1>Something went wrong</h1>
          <p class="error">${status >= 500 ? 'The request failed; it was logged.' : err.message}</p>`,
      ),
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendPage(
      reply,
      404,
      page(
        { title: 'Not found', session: null },
        html`<h1>Not found</h1>
          <p><a href="/days">Business days</a></p>`,
      ),
    ),
  );

  app.get('/console.css', { config: { access: 'public' } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('Cache-Control', 'max-age=300').send(CONSOLE_CSS),
  );
  // An SVG under the name browsers ask for unprompted: no 404 on every page.
  app.get('/favicon.ico', { config: { access: 'public' } }, async (_request, reply) =>
    reply.type('image/svg+xml').header('Cache-Control', 'max-age=86400').send(FAVICON_SVG),
  );
  app.get('/', { config: { access: 'read' } }, async (_request, reply) => reply.redirect('/days', 302));

  registerAuthRoutes(app, deps, policy);
  registerDayRoutes(app, deps);
  registerDownloadRoutes(app, deps);
  registerCaseImportRoutes(app, deps);
  registerCaseRoutes(app, deps);
  registerOrderRoutes(app, deps);
  registerMovementRoutes(app, deps);
  registerRerunRoutes(app, deps);
  registerJobRoutes(app, deps);
  registerUserRoutes(app, deps);
  return app;
}
