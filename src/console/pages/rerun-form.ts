import { html, type Html } from '../../html/html.ts';
import { can } from '../auth/roles.ts';
import type { Session } from '../auth/sessions.ts';
import { csrfField } from './layout.ts';

/** The button that queues a rerun of a day, or why none can be queued; nothing for a role that may not rerun. */
export function rerunForm(session: Session, date: string, refusal: string | null, label = 'Rerun this day'): Html | null {
  if (!can(session.role, 'rerun')) return null;
  // Said here rather than queued to fail in the worker.
  if (refusal) return html`<span class="muted rerun-refused" title="${refusal}">(rerun unavailable: ${refusal})</span>`;
  return html`<form class="inline" method="post" action="/reruns">
    ${csrfField(session)}<input type="hidden" name="date" value="${date}" /><button type="submit">${label}</button>
  </form>`;
}
