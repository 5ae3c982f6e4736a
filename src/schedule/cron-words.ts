/**
 * A cron expression of the shapes payrecon's SCHEDULE_* defaults and docs use, in words for
 * people ("every 15 minutes", "daily at 06:00"); anything else comes back as written.
 */
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const NUM = /^\d{1,2}$/;

const two = (n: string) => n.padStart(2, '0');

export function cronInWords(expression: string): string {
  const raw = expression.trim();
  if (raw === 'off') return 'off';
  const f = raw.split(/\s+/);
  if (f.length !== 5) return raw;
  const [min, hour, dom, mon, dow] = f;
  if (mon !== '*') return raw;
  const everyDay = dom === '*' && dow === '*';
  const step = /^\*\/(\d{1,2})$/;
  if (everyDay && hour === '*') {
    if (min === '*') return 'every minute';
    const m = step.exec(min);
    if (m) return Number(m[1]) === 1 ? 'every minute' : `every ${Number(m[1])} minutes`;
    if (NUM.test(min) && Number(min) < 60) return Number(min) === 0 ? 'every hour, on the hour' : `every hour at :${two(min)}`;
    return raw;
  }
  if (!NUM.test(min) || Number(min) > 59) return raw;
  const hourStep = step.exec(hour);
  if (everyDay && hourStep) return `every ${Number(hourStep[1])} hours at :${two(min)}`;
  if (!NUM.test(hour) || Number(hour) > 23) return raw;
  const at = `${two(hour)}:${two(min)}`;
  if (everyDay) return `daily at ${at}`;
  if (dom === '*' && /^[0-7]$/.test(dow)) return `weekly on ${DAYS[Number(dow)]} at ${at}`;
  if (dom === '*' && dow === '1-5') return `weekdays at ${at}`;
  if (dow === '*' && NUM.test(dom) && Number(dom) >= 1 && Number(dom) <= 31) return `monthly on day ${Number(dom)} at ${at}`;
  return raw;
}
