import { html, type Html } from '../../html/html.ts';

/** The day's page links the movements that may have moved its balance. */
export function dayMovementsLink(date: string): Html {
  return html`<p class="day-movements"><a href="/movements?day=${date}">Movements of ${date}</a> (top-ups, withdrawals, adjustments)</p>`;
}

/**
 * A drift case links the movements page, its figures in the form: a BALANCE_DRIFT is resolved by
 * recording (and approving) the movement it was; a DRIFT_MATCHES_PENDING names a pending movement
 * to approve or a statement line to record. Nothing for other codes.
 */
export function caseMovementsLink(c: { id: string; code: string }): Html | null {
  if (c.code === 'BALANCE_DRIFT')
    return html`<dt>movements</dt>
      <dd>
        <a href="/movements?case=${c.id}">Record the movement this drift was</a> (another finance user approves it; that resolves this case)
      </dd>`;
  if (c.code === 'DRIFT_MATCHES_PENDING')
    return html`<dt>movements</dt>
      <dd><a href="/movements?case=${c.id}">Approve the pending movement, or record the one the bank line was</a></dd>`;
  return null;
}
