import type { Context } from 'koa';
import type { Config } from '../platform/config';
import type { SessionUser } from '../platform/http/context';
import { readCookie, setCookieHeader } from '../platform/http/cookies';

/**
 * The session cookie (DECISIONS "E-book download as a plain link"): login also hands the session
 * token to the browser as an HttpOnly cookie, so that `/api/ebooks/{sku}/download` opened in a
 * new tab (which sends no bearer header) works. SameSite=Lax (a top-level navigation carries it),
 * Path=/api, Secure in production. Only that GET route reads it: every other route takes bearer
 * tokens only, so no write can be forged from another site.
 */
export const SESSION_COOKIE = 'cv_session';

type CookieConfig = Pick<Config, 'isProduction' | 'sessionTtlDays'>;

/** Login: lives as long as the session, or until the browser closes when the person chose not to stay signed in. */
export function sessionCookie(config: CookieConfig, token: string, remember: boolean): string {
  return setCookieHeader(SESSION_COOKIE, token, {
    path: '/api',
    sameSite: 'Lax',
    secure: config.isProduction,
    maxAgeS: remember ? config.sessionTtlDays * 86_400 : undefined,
  });
}

/** Logout: the browser drops it. */
export function clearedSessionCookie(config: CookieConfig): string {
  return setCookieHeader(SESSION_COOKIE, '', { path: '/api', sameSite: 'Lax', secure: config.isProduction, maxAgeS: 0 });
}

/** The account of the request's session cookie (checked like a bearer token), or null. */
export async function cookieSessionUser(
  ctx: Context,
  authenticate: (token: string) => Promise<SessionUser | null>,
): Promise<SessionUser | null> {
  const token = readCookie(ctx.get('cookie'), SESSION_COOKIE);
  return token ? authenticate(token) : null;
}
