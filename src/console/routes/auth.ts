import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { cookieOptions, LOGIN_CSRF_COOKIE, safeNext, sameToken, sendPage, SESSION_COOKIE, type ConsoleDeps } from '../http-kit.ts';
import { login, logout, type SessionPolicy } from '../auth/sessions.ts';
import { html } from '../../html/html.ts';
import { page } from '../pages/layout.ts';

function loginPage(csrf: string, next: string, message: string | null): string {
  return page(
    { title: 'Sign in', session: null },
    html`<div class="login">
      <h1>Sign in to the payrecon console</h1>
      ${message ? html`<p class="error" role="alert">${message}</p>` : null}
      <form class="form" method="post" action="/login">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <input type="hidden" name="next" value="${next}" />
        <label>User name <input name="name" autocomplete="username" required autofocus /></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
        <button type="submit">Sign in</button>
      </form>
    </div>`,
  );
}

export function registerAuthRoutes(app: FastifyInstance, deps: ConsoleDeps, policy: SessionPolicy): void {
  // The login form's CSRF token is a double-submit cookie: there is no session to bind it to yet.
  app.get('/login', { config: { access: 'public' } }, async (request, reply) => {
    const csrf = randomBytes(24).toString('base64url');
    reply.setCookie(LOGIN_CSRF_COOKIE, csrf, cookieOptions(request, deps.config, 3600));
    return sendPage(reply, 200, loginPage(csrf, safeNext((request.query as Record<string, unknown>).next), null));
  });

  app.post('/login', { config: { access: 'public' } }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const cookieToken = request.cookies[LOGIN_CSRF_COOKIE];
    if (!cookieToken || !sameToken(body._csrf, cookieToken)) {
      return sendPage(
        reply,
        403,
        page(
          { title: 'Sign in', session: null },
          html`<h1>Not allowed</h1>
            <p class="error">The sign-in form was missing its security token. <a href="/login">Reload it</a> and try again.</p>`,
        ),
      );
    }
    const next = safeNext(body.next);
    const name = typeof body.name === 'string' ? body.name.trim().toLowerCase() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const result = await login(deps.db.knex, policy, { name, password, address: request.ip, now: deps.now() });
    if (!result.ok) {
      const message =
        result.reason === 'throttled'
          ? `Too many failed sign-ins. Try again in ${Math.ceil(policy.throttleWindowMs / 60_000)} minutes.`
          : 'Wrong user name or password.';
      return sendPage(reply, result.reason === 'throttled' ? 429 : 401, loginPage(cookieToken, next, message));
    }
    reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/' });
    reply.setCookie(SESSION_COOKIE, result.token, cookieOptions(request, deps.config));
    return reply.redirect(next, 303);
  });

  app.post('/logout', { config: { access: 'session' } }, async (request, reply) => {
    await logout(deps.db.knex, request.session!, request.ip, deps.now());
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/login', 303);
  });
}
