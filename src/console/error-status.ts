import { UserInputError } from './users.ts';

/**
 * The console's one map from what a route threw to the status of its error page. Fastify's own errors
 * (a body too large, a bad content type, a malformed form) carry an HTTP `statusCode`; a refused user
 * input is the person's to fix; anything else is a failure of ours, logged and shown without its message.
 */
const STATUS_BY_ERROR: ReadonlyArray<(err: unknown) => number | null> = [
  (err) => (err instanceof UserInputError ? 400 : null),
  (err) => httpStatusOf(err),
];

/** A 4xx or 5xx `statusCode` the error carries (Fastify's errors and its plugins'), else null. */
function httpStatusOf(err: unknown): number | null {
  if (typeof err !== 'object' || err === null || !('statusCode' in err)) return null;
  const { statusCode } = err;
  return typeof statusCode === 'number' && Number.isInteger(statusCode) && statusCode >= 400 && statusCode <= 599 ? statusCode : null;
}

/** The error page's status for what was thrown: 500 unless the map above says otherwise. */
export function statusOf(err: unknown): number {
  for (const rule of STATUS_BY_ERROR) {
    const status = rule(err);
    if (status !== null) return status;
  }
  return 500;
}
