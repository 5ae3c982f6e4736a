import fs from 'node:fs';
import { CHROMIUM_PATH } from './helpers/browser.ts';
import { insisting, missingInCi } from './helpers/skips.ts';

/** For the e2e project: under CI a missing Chromium fails the run at once, instead of its browser tests skipping. */
export default function setup(): void {
  if (insisting() && !fs.existsSync(CHROMIUM_PATH))
    throw missingInCi(`no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, as .ci/run does as root, or set CHROMIUM_PATH)`);
}
