import os from 'node:os';
import type { Config } from '../config/config.ts';
import { UsageError } from '../domain/errors.ts';

/** --as, else PAYRECON_ACTOR, else the OS user: every recorded step names a person. */
export function actorOf(as: string | undefined, config: Pick<Config, 'PAYRECON_ACTOR'>): string {
  if (as !== undefined) {
    if (!/^[^\x00-\x1f\x7f]{1,100}$/.test(as.trim())) throw new UsageError('--as: expected a name of up to 100 printable characters');
    return as.trim();
  }
  if (config.PAYRECON_ACTOR) return config.PAYRECON_ACTOR;
  try {
    return os.userInfo().username;
  } catch {
    throw new UsageError('no actor: pass --as NAME or set PAYRECON_ACTOR');
  }
}
