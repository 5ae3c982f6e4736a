/**
 * The gate `npm run config:reads`: every variable of the configuration schema is read by some code
 * (an identifier in src/ or jobs/ outside the schema: `config.NAME`, `{ NAME }`, `env.NAME`), not
 * only declared, documented and validated. Comments and strings do not count as reads. Exit 1
 * naming each variable nothing reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ENV_VARS } from '../src/config/schema.ts';

const root = path.join(import.meta.dirname, '..');
const SCHEMA = path.join('src', 'config', 'schema.ts');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return e.name.endsWith('.ts') && rel !== SCHEMA ? [rel] : [];
  });
}

/** The identifiers of a file, from its syntax tree (comments and string literals are not identifiers). */
function identifiers(file: string): Set<string> {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

const read = new Set<string>();
for (const file of [...sourceFiles('src'), ...sourceFiles('jobs')]) for (const name of identifiers(file)) read.add(name);
const unread = Object.keys(ENV_VARS).filter((name) => !read.has(name));
if (unread.length) {
  for (const name of unread)
    console.error(`${name}: declared in ${SCHEMA} but nothing in src/ or jobs/ reads it; read it where it takes effect, or remove it`);
  process.exitCode = 1;
} else console.log(`config:reads: all ${Object.keys(ENV_VARS).length} variables are read`);
