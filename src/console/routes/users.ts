import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { listUsers } from '../../db/console-users.ts';
import { recentActions } from '../../db/console-actions.ts';
import { disableUser, UserInputError } from '../users.ts';
import { html } from '../../html/html.ts';
import { csrfField, page, stateBadge } from '../pages/layout.ts';
import { at, dataTable } from '../pages/format.ts';

/** Admins see the users and the console's audit of logins, reruns and user changes, and may disable a user. */
export function registerUserRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  app.get('/users', { config: { access: 'manage-users' } }, async (request, reply) => {
    const s = request.session!;
    const users = await listUsers(deps.db.knex);
    const actions = await recentActions(deps.db.knex, 50);
    const body = html`<h1>Users</h1>
      <p class="muted">
        Add users and change passwords with <code>payrecon users add NAME --role viewer|finance|admin --password-stdin</code> and
        <code>payrecon users passwd NAME</code>.
      </p>
      ${dataTable(
        html`<th>name</th>
          <th>role</th>
          <th>state</th>
          <th>added</th>
          <th></th>`,
        users.map(
          (u) =>
            html`<tr>
              <td>${u.name}</td>
              <td>${u.role}</td>
              <td>${stateBadge(u.disabled ? 'disabled' : 'enabled')}</td>
              <td>${at(u.createdAt, zone)}</td>
              <td>
                ${
                  !u.disabled && u.name !== s.userName
                    ? html`<form class="inline" method="post" action="/users/${u.name}/disable">
                        ${csrfField(s)}<button class="secondary" type="submit">Disable</button>
                      </form>`
                    : null
                }
              </td>
            </tr>`,
        ),
      )}
      <h2>Recent console actions</h2>
      ${dataTable(
        html`<th>at</th>
          <th>who</th>
          <th>action</th>
          <th>target</th>
          <th>address</th>`,
        actions.map(
          (a) =>
            html`<tr>
              <td>${at(a.at, zone)}</td>
              <td>${a.actor}</td>
              <td>${a.action}</td>
              <td>${a.target}</td>
              <td>${a.address}</td>
            </tr>`,
        ),
      )}`;
    return sendPage(reply, 200, page({ title: 'Users', session: s, nav: 'users' }, body));
  });

  app.post('/users/:name/disable', { config: { access: 'manage-users' } }, async (request, reply) => {
    const s = request.session!;
    const name = (request.params as { name: string }).name;
    if (name === s.userName)
      return sendPage(
        reply,
        400,
        page({ title: 'Users', session: s, nav: 'users' }, html`<p class="error">You cannot disable yourself.</p>`),
      );
    try {
      await disableUser(deps.db.knex, name, { name: s.userName, address: request.ip }, deps.now());
    } catch (err) {
      if (err instanceof UserInputError)
        return sendPage(reply, 400, page({ title: 'Users', session: s, nav: 'users' }, html`<p class="error">${err.message}</p>`));
      throw err;
    }
    return reply.redirect('/users', 303);
  });
}
