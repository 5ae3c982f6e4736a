// Preloaded by demo-fingerprint.sh (node --import): the clock stands at FP_NOW until the first
// server listens (the demo's sandbox), then runs on from there. The demo reads the sandbox's epoch
// before that, so its USDT rates, and the business date, are the same on every run; the times
// written after it differ by milliseconds, and the fingerprint normalises them.
import http from 'node:http';

const fixed = Date.parse(process.env.FP_NOW ?? '');
if (Number.isNaN(fixed)) throw new Error(`FP_NOW: expected an ISO instant (got ${JSON.stringify(process.env.FP_NOW)})`);
const RealDate = Date;
let letGoAt = null;
const now = () => (letGoAt === null ? fixed : fixed + (RealDate.now() - letGoAt));

class DemoDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(now());
    else super(...args);
  }
  static now() {
    return now();
  }
}
globalThis.Date = DemoDate;

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  if (letGoAt === null) letGoAt = RealDate.now();
  return listen.apply(this, args);
};
