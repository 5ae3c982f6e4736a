import { html, type Html } from '../../html/html.ts';

/** An order's page. */
export function orderHref(direction: string, id: string): string {
  return `/orders/${encodeURIComponent(direction)}/${encodeURIComponent(id)}`;
}

/** A ref linked to its order: by id when known, else through the search (a whole ref lands on its order). */
export function orderLink(ref: string, order?: { direction: string | null; id: string | null }): Html {
  const href = order?.direction && order.id ? orderHref(order.direction, order.id) : `/search?ref=${encodeURIComponent(ref)}`;
  return html`<a href="${href}">${ref}</a>`;
}

export function caseLink(id: string, label: string = `#${id}`): Html {
  return html`<a href="/cases/${id}">${label}</a>`;
}
