import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'dotenv';
import { ENV_VARS } from '../src/config/schema.ts';
import { loadConfig } from '../src/config/config.ts';

describe('.env.example', () => {
  const example = parse(fs.readFileSync(new URL('../.env.example', import.meta.url)));

  it('documents every variable payrecon reads', () => {
    expect(Object.keys(example).sort()).toEqual(Object.keys(ENV_VARS).sort());
  });

  it('is itself a valid configuration', () => {
    expect(() => loadConfig(example)).not.toThrow();
  });
});
