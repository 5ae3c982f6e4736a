import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { accountOfOrder, casesOfOrder, notificationsOfOrder, ordersByRefPrefix, versionsOfOrder } from '../../db/order-lookup.ts';
import { findOrderById } from '../../db/orders.ts';
import { selectItemsOfOrder } from '../../db/items.ts';
import { html } from '../../html/html.ts';
import { page } from '../pages/layout.ts';
import { amount, at, dataTable } from '../pages/format.ts';
import { orderHref } from '../pages/links.ts';
import { orderPageBody } from '../pages/order-page.ts';
import { consoleAccountIds } from './account-choice.ts';

/** A piece shorter than this matches too many orders to be a search. */
export const MIN_REF_PIECE = 6;
const SHOWN = 20;

export function registerOrderRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const accountIds = consoleAccountIds(deps.config);
  // With several accounts a merchantRef may be two orders' (sql/055): each row names its account.
  const several = accountIds.length > 1;

  app.get('/search', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const { ref: raw, account } = request.query as { ref?: unknown; account?: unknown };
    const piece = typeof raw === 'string' ? raw.trim() : '';
    const answer = (status: number, body: ReturnType<typeof html>) =>
      sendPage(
        reply,
        status,
        page(
          { title: 'Search', session: s, searched: piece },
          html`<h1>Search by ref</h1>
            ${body}`,
        ),
      );
    if (piece.length < MIN_REF_PIECE)
      return answer(
        400,
        html`<p class="error" role="alert">
          ref: type a merchant or transaction ref, whole or its first ${MIN_REF_PIECE} characters at least (got
          ${piece.length === 0 ? 'nothing' : `${piece.length}`}).
        </p>`,
      );
    // With several accounts, ?account=ID narrows the search to that account's orders; with one it is ignored.
    const chosen = typeof account === 'string' && account !== '' && accountIds.length > 1 ? account : undefined;
    if (chosen !== undefined && !accountIds.includes(chosen))
      return answer(
        400,
        html`<p class="error" role="alert">
          account: ${JSON.stringify(chosen.slice(0, 40))} is not a configured account; choose from ${accountIds.join(', ')}
        </p>`,
      );
    const found = await ordersByRefPrefix(deps.db.knex, piece, SHOWN + 1, chosen);
    if (found.length === 1) return reply.redirect(orderHref(found[0].direction, found[0].id), 303);
    if (found.length === 0)
      return answer(
        404,
        html`<p class="error" role="alert">No payment or payout has a merchant or transaction ref starting with “${piece}”.</p>`,
      );
    return answer(
      200,
      html`<p>
          ${found.length > SHOWN ? `More than ${SHOWN}` : found.length} orders have a ref starting with
          “${piece}”${found.length > SHOWN ? '; type more of it to narrow them' : ''}.
        </p>
        ${dataTable(
          html`<th>order</th>
            ${several ? html`<th>account</th>` : null}
            <th>transaction ref</th>
            <th>direction</th>
            <th class="num">amount</th>
            <th>status</th>
            <th>created</th>`,
          found.slice(0, SHOWN).map(
            (o) =>
              html`<tr>
                <td><a href="${orderHref(o.direction, o.id)}">${o.merchantRef}</a></td>
                ${several ? html`<td>${o.accountId}</td>` : null}
                <td>${o.transactionRef}</td>
                <td>${o.direction}</td>
                <td class="num">${amount(o.amount, o.currency)} ${o.currency}</td>
                <td>${o.status}</td>
                <td>${at(o.createdAt, zone)}</td>
              </tr>`,
          ),
        )}`,
    );
  });

  app.get('/orders/:direction/:id', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const { direction, id } = request.params as { direction: string; id: string };
    const order =
      (direction === 'payment' || direction === 'payout') && /^[1-9]\d{0,17}$/.test(id)
        ? await findOrderById(deps.db.knex, direction, id)
        : null;
    if (!order)
      return sendPage(
        reply,
        404,
        page(
          { title: 'Not found', session: s },
          html`<h1>No such order</h1>
            <p>Search by its ref with the box above.</p>`,
        ),
      );
    const [account, checks, notifications, cases, versions] = await Promise.all([
      accountOfOrder(deps.db.knex, order.direction, order.id),
      selectItemsOfOrder(deps.db.knex, order.direction, order.id),
      notificationsOfOrder(deps.db.knex, order.direction, order.transactionRef),
      casesOfOrder(deps.db.knex, order.direction, order.id),
      versionsOfOrder(deps.db.knex, order.direction, order.id),
    ]);
    const body = orderPageBody({ order, account, checks, notifications, cases, versions, zone });
    return sendPage(reply, 200, page({ title: `${order.direction} ${order.merchantRef}`, session: s }, body));
  });
}
