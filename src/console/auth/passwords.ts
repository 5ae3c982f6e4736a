// Loaded on first use: only the console and `payrecon users` hash passwords, and the native module
// is about 12 MB of every other command's memory.
const argon2 = () => import('@node-rs/argon2');

/**
 * argon2id with the library's defaults (19 MiB, 2 passes: OWASP's minimum for argon2id), a random
 * salt per hash; the PHC string keeps salt and parameters, so raising them later still verifies old hashes.
 */
export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  // Outside the try: a module that cannot load is a broken install, not a wrong password.
  const { verify } = await argon2();
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/** A hash to verify against when the user does not exist, so an unknown name takes as long as a wrong password. */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword('payrecon-console-no-such-user');
  return dummy;
}

export const MIN_PASSWORD_LENGTH = 12;

/** A reason the password is refused, or null. Length is what matters; no composition rules (NIST 800-63B). */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `expected at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > 1024) return 'expected at most 1024 characters';
  return null;
}
