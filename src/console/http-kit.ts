// What the console's app and its routes share (deps, cookies, page replies), apart from the app
// that registers the routes: a route importing app.ts would be a cycle.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/connect.ts';
import type { Session, SessionPolicy } from './auth/sessions.ts';
import type { Permission } from '../domain/roles.ts';

export interface ConsoleDeps {
  db: Db;
  config: Config;
  /** The clock: sessions, throttling and every recorded time read it (tests pass a fixed one). */
  now: () => Date;
  logger: Logger;
  /** Called after a rerun was queued, so the worker looks at once instead of at its next poll. */
  onRerunQueued?: () => void;
}

/** Who may call a route: 'public' (only the login page), or the permission it needs. */
export type Access = 'public' | 'session' | Permission;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /**
     * 'upload': a multipart form whose CSRF token the route checks itself (readUpload in upload.ts),
     * as its first field, before reading the file; the pre-handler cannot see a body not yet read.
     */
    csrf?: 'upload';
  }
  interface FastifyRequest {
    session: Session | null;
  }
}

export const SESSION_COOKIE = 'payrecon_session';
export const LOGIN_CSRF_COOKIE = 'payrecon_login';

export function sessionPolicy(config: Config): SessionPolicy {
  return {
    idleMs: config.CONSOLE_IDLE_TIMEOUT_MIN * 60_000,
    absoluteMs: config.CONSOLE_ABSOLUTE_TIMEOUT_MIN * 60_000,
    maxFailures: config.CONSOLE_LOGIN_MAX_FAILURES,
    throttleWindowMs: config.CONSOLE_LOGIN_WINDOW_MIN * 60_000,
  };
}

/** Equal-length constant-time comparison of two tokens; false for a missing one. */
export function sameToken(a: unknown, b: string): boolean {
  if (typeof a !== 'string' || a.length !== b.length || b.length === 0) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Cookie options: HttpOnly and SameSite=Lax always; Secure when CONSOLE_PUBLIC_URL is https (a
 * TLS-terminating proxy talks plain http to us) or when the request itself came over https.
 */
export function cookieOptions(request: FastifyRequest, config: Pick<Config, 'CONSOLE_PUBLIC_URL'>, maxAgeSec?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure:
      request.protocol === 'https' || (config.CONSOLE_PUBLIC_URL !== undefined && new URL(config.CONSOLE_PUBLIC_URL).protocol === 'https:'),
    ...(maxAgeSec ? { maxAge: maxAgeSec } : {}),
  };
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** A local path to return to after login: never another origin. */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) && !value.startsWith('/login') ? value : '/days';
}
