import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../domain/errors.ts';

/** Marks a folder as the demo's own: only such a folder is wiped when the demo starts again. */
const DEMO_FILE = '.payrecon-demo';

/**
 * The demo recreates its database on every run, so its reports cannot share REPORT_DIR with a real
 * database (the folder's marker would refuse the new one): they go to REPORT_DIR/demo/, started
 * afresh each run. A folder there that the demo did not make is left alone and refused.
 */
export function freshDemoReportDir(reportDir: string): string {
  const dir = path.resolve(reportDir, 'demo');
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0 && !fs.existsSync(path.join(dir, DEMO_FILE)))
    throw new UsageError(
      `${dir}: holds files the demo did not write; the demo keeps its reports there and starts it afresh. Move them, or set REPORT_DIR elsewhere.`,
    );
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, DEMO_FILE), 'reports of `payrecon demo`; wiped and rewritten by each demo run\n');
  return dir;
}
