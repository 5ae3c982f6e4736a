/** Writes docs/reference/configuration.md from src/config/schema.ts (`npm run docs:config`). */
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_PAGE, configReferencePage } from '../src/config/reference-page.ts';

const file = path.join(import.meta.dirname, '..', CONFIG_PAGE);
fs.writeFileSync(file, configReferencePage());
process.stdout.write(`wrote ${CONFIG_PAGE}\n`);
