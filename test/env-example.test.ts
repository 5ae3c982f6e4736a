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

describe('README', () => {
  const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');

  it('quick start is the two commands CI and newcomers run', () => {
    expect(readme).toContain('npm install && npx payrecon demo');
    expect(readme).toContain('```sh\nnpm test\n```');
    const ci = fs.readFileSync(new URL('../.ci/run', import.meta.url), 'utf8');
    expect(ci).toMatch(/^npm test$/m);
  });
});
