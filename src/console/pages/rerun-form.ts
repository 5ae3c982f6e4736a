import { html, type Html } from '../../html/html.ts';
import { can } from '../../domain/roles.ts';
import type { Session } from '../auth/sessions.ts';
import { csrfField } from './layout.ts';

/**
 * The button that queues a rerun of a day, or why none can be queued; nothing for a role that may not rerun.
 * account, with several accounts configured: whose day (a hidden field), or the ids to choose from (a select).
 */
export function rerunForm(
  session: Session,
  date: string,
  refusal: string | null,
  label = 'Rerun this day',
  account?: string | readonly string[],
): Html | null {
  if (!can(session.role, 'rerun')) return null;
  // Said here rather than queued to fail in the worker.
  if (refusal) return html`<span class="muted rerun-refused" title="${refusal}">(rerun unavailable: ${refusal})</span>`;
  return html`<form class="inline" method="post" action="/reruns">
    ${csrfField(session)}<input type="hidden" name="date" value="${date}" />${accountField(account)}<button type="submit">${label}</button>
  </form>`;
}

/** The rerun's account: none with one account (the form as before). */
export function accountField(account: string | readonly string[] | undefined): Html | null {
  if (account === undefined) return null;
  if (typeof account === 'string') return html`<input type="hidden" name="account" value="${account}" />`;
  return html`<select name="account" required aria-label="account">
    <option value="">account…</option>
    ${account.map((a) => html`<option value="${a}">${a}</option>`)}
  </select>`;
}
