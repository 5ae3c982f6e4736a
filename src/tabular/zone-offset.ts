import { IANAZone } from 'luxon';

/**
 * The zone's UTC offset in minutes at an instant, for REPORT_TIMEZONE: the one place the report
 * turns instants into the zone's wall clock (CSV and html text via timeFormatter, workbook
 * date-times via wallClockSerial). luxon supplies the offset, cached per minute (zone transitions fall
 * on whole minutes): a full DateTime per cell costs seconds on a million rows, this costs a lookup.
 */
export function zoneOffset(zone: string): (epochMs: number) => number {
  const z = IANAZone.create(zone);
  if (!z.isValid) throw new Error(`invalid time zone ${JSON.stringify(zone)}`);
  const offsets = new Map<number, number>();
  return (epochMs) => {
    const minute = Math.floor(epochMs / 60_000);
    let offset = offsets.get(minute);
    if (offset === undefined) {
      if (offsets.size > 100_000) offsets.clear();
      offset = z.offset(epochMs);
      offsets.set(minute, offset);
    }
    return offset;
  };
}
