/**
 * Which unresolved cases breach their SLA: the hours a case of its code may stay unresolved
 * (CASE_SLA_HOURS, "FEE=48,STATUS=24,default=72"), counted from its (re)opening. Pure.
 */

/** Hours per code; `default` for codes not listed. */
export type SlaHours = Readonly<Record<string, number>>;

/** Used when CASE_SLA_HOURS gives no default. */
const FALLBACK_HOURS = 72;

export function slaHoursOf(code: string, sla: SlaHours): number {
  return sla[code] ?? sla.default ?? FALLBACK_HOURS;
}

/** True when the case is unresolved and older than its code's SLA at `now`. */
export function breachesSla(c: { code: string; state: string; openedAt: Date }, sla: SlaHours, now: Date): boolean {
  return c.state !== 'resolved' && now.getTime() - c.openedAt.getTime() > slaHoursOf(c.code, sla) * 3_600_000;
}
