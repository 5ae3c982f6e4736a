import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'dotenv';
import { ENV_VARS } from '../src/config/schema.ts';
import { CONFIG_PAGE, configReferencePage } from '../src/config/reference-page.ts';

const root = path.join(import.meta.dirname, '..');
const page = fs.readFileSync(path.join(root, CONFIG_PAGE), 'utf8');
const example = parse(fs.readFileSync(path.join(root, '.env.example')));
const inSchema = Object.keys(ENV_VARS).sort();
const inPage = [...page.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]).sort();

describe('docs/reference/configuration.md', () => {
  it('is what `npm run docs:config` writes from the schema today (not stale)', () => {
    expect(page, 'run `npm run docs:config` and commit the page').toBe(configReferencePage());
  });

  it('has one row per variable of the schema, and none that is not in it', () => {
    expect(inPage).toEqual(inSchema);
  });

  it('says of every variable what its value looks like and what it does', () => {
    for (const [name, spec] of Object.entries(ENV_VARS)) {
      expect(spec.doc.trim(), name).not.toBe('');
      expect(spec.schema.description ?? (spec.schema as { options?: unknown }).options, name).toBeTruthy();
    }
  });

  it('lists the same variables as .env.example', () => {
    expect(Object.keys(example).sort()).toEqual(inPage);
  });

  it('gives the defaults .env.example gives', () => {
    for (const [name, spec] of Object.entries(ENV_VARS)) {
      const def = 'default' in spec ? spec.default : '';
      if (example[name] !== '') expect(example[name], name).toBe(def);
    }
  });
});
