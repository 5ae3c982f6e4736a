// Preloaded into a measured child (node --import): writes its peak RSS (KiB) and CPU time (µs) to
// BENCH_RSS_FILE at exit, so the harness measures the real CLI process without wrapping or polling it.
import fs from 'node:fs';

const file = process.env.BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    fs.writeFileSync(file, JSON.stringify({ maxRSS: u.maxRSS, cpuMicros: u.userCPUTime + u.systemCPUTime }));
  });
}
