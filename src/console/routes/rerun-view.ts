import type { ConsoleDeps } from '../http-kit.ts';
import { rerunReconcileProgress, type RerunRow } from '../../db/console-reruns.ts';
import { versionsOfDay } from '../../db/report-days.ts';
import { changedOrders, versionMoney, versionRecordedMoney, versionTally } from '../../db/version-diff.ts';
import { accountRecipientsOf, sendRefusal } from '../can-do.ts';
import { can } from '../../domain/roles.ts';
import type { Session } from '../auth/sessions.ts';
import type { Html } from '../../html/html.ts';
import { rerunPage, type RerunPageContext } from '../pages/rerun.ts';
import type { RerunOutcome } from '../pages/rerun-outcome.ts';

const CHANGED_SHOWN = 200;

/** Per currency money of the version against the previous one; null when either did not record amounts (before sql/051). */
async function moneyOf(deps: ConsoleDeps, versionId: string, previousId: string | null) {
  for (const id of [versionId, previousId]) if (id !== null && !(await versionRecordedMoney(deps.db.knex, id))) return null;
  return versionMoney(deps.db.knex, previousId, versionId);
}

/** The finished rerun's version against the one before it, and whether it can be sent. */
async function outcomeOf(deps: ConsoleDeps, s: Session, r: RerunRow): Promise<RerunOutcome | null> {
  if (r.state !== 'completed' || r.reportVersion === null) return null;
  const versions = await versionsOfDay(deps.db.knex, r.businessDate, r.account);
  const version = versions.find((v) => v.version === r.reportVersion);
  // A version the retention removed has no recorded orders left to tally (its day page says so).
  if (!version || version.removedAt) return null;
  // Nor has a removed previous one: no comparison rather than "every order changed".
  const previous = versions.find((v) => v.version < version.version && !v.removedAt) ?? null;
  return {
    version,
    previous,
    tally: await versionTally(deps.db.knex, version.id),
    previousTally: previous ? await versionTally(deps.db.knex, previous.id) : null,
    money: await moneyOf(deps, version.id, previous?.id ?? null),
    changed: previous ? await changedOrders(deps.db.knex, previous.id, version.id, CHANGED_SHOWN) : null,
    sendRefusal: sendRefusal(deps.config, accountRecipientsOf(deps.config, r.account)),
    maySend: can(s.role, 'rerun'),
    rerunId: r.id,
  };
}

/** One rerun's page as it stands now: its progress while it runs, its outcome once finished. */
export async function rerunView(
  deps: ConsoleDeps,
  s: Session,
  r: RerunRow,
  ctx: RerunPageContext,
  message: Html | null = null,
): Promise<string> {
  const progress = r.state === 'running' ? await rerunReconcileProgress(deps.db.knex, r.id) : null;
  return rerunPage(s, r, ctx, { progress, outcome: await outcomeOf(deps, s, r), message });
}
