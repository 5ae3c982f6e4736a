import type { z } from 'zod';
import { ENV_VARS } from './schema.ts';

// docs/reference/configuration.md is this function's output (`npm run docs:config`); a test
// compares the committed page with it, so a variable cannot be added without its docs.

export const CONFIG_PAGE = 'docs/reference/configuration.md';

/** What a value looks like: the schema's .describe() text, or an enum's choices. */
function valueType(name: string, schema: z.ZodType): string {
  if (schema.description) return schema.description;
  const options = (schema as { options?: readonly string[] }).options;
  if (Array.isArray(options)) return `one of ${options.join(', ')}`;
  throw new Error(`${name}: its schema has no .describe() text saying what a value looks like`);
}

/** Markdown table cells: a pipe inside a cell would end it. */
const cell = (text: string) => text.replace(/\|/g, '\\|');

export function configReferencePage(): string {
  const rows = Object.entries(ENV_VARS).map(([name, spec]) => {
    const def = 'default' in spec && spec.default !== '' ? `\`${spec.default}\`` : '(unset)';
    const type = valueType(name, spec.schema) + (spec.secret ? ' (**secret**)' : '');
    return `| \`${name}\` | ${cell(type)} | ${cell(def)} | ${cell(spec.doc)} |`;
  });
  return [
    '# Configuration',
    '',
    '<!-- Generated from src/config/schema.ts by `npm run docs:config`; edit the schema, not this page. -->',
    '',
    'Everything comes from the environment (a `.env` file is read too; the environment wins) and is',
    'validated at start: a bad value stops the program with a message naming the variable and what it',
    'expects, every problem at once. Secrets are never logged or written to reports, errors or e-mails.',
    "Every variable is in [`.env.example`](../../.env.example), with the same defaults; each command's",
    '`--help` lists the ones it reads.',
    '',
    'Logs are JSON lines on stderr (pino), scoped by job and run (`job`, `invocation`, `runId`); stdout is',
    'kept for tables and `--json` output. The signing schemes of `PROVIDER_SIGNATURE`:',
    '[provider-signing.md](provider-signing.md).',
    '',
    '| variable | type | default | meaning |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
