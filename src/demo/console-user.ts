import { randomBytes } from 'node:crypto';
import type { Knex } from '../db/knex-types.ts';
import { addUser } from '../console/users.ts';

/**
 * The demo's console user: finance role, a fresh random password each run, only in the demo's own
 * database (wiped at every demo start). Returns the lines telling how to open the console on it.
 */
export async function demoConsoleAccess(
  db: Knex,
  o: { dataDir: string; schema: string | null; host: string; port: number; now: Date },
): Promise<string[]> {
  const password = randomBytes(12).toString('base64url');
  await addUser(db, { name: 'demo', role: 'finance', password, actor: { name: 'payrecon-demo' }, now: o.now });
  const env = o.schema ? `DATABASE_SCHEMA=${o.schema}` : `PGLITE_DIR=${o.dataDir}`;
  return [
    'console   to look at this night in the browser:',
    `            ${env} npx payrecon console`,
    `          then open http://${o.host}:${o.port}/ and sign in as demo / ${password}`,
    "          (finance role, this demo's database only; reruns need a provider, and the demo's sandbox has stopped)",
  ];
}
