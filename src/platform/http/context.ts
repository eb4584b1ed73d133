import Router from '@koa/router';
import type { Context } from 'koa';
import type { ZodType } from 'zod';
import { errors } from '../errors';
import type { Logger } from '../logger';
import type { CachedJson } from '../read-cache';
import type { Config } from '../config';
import { adminAccessRefusal } from '../../auth/access';

/** The account attached to a request by the auth middleware (fresh from the database). */
export interface SessionUser {
  id: number;
  email: string;
  name: string;
  isAdmin: boolean;
  /** Two-factor sign-in (TOTP) is on for this account (user_mfa.enabled_at). */
  mfaEnabled: boolean;
  tokenId: number;
}

export interface AppState {
  requestId: string;
  log: Logger;
  user: SessionUser | null;
  /** What the admin access decision reads from the configuration (set by src/http.ts for every request). */
  accessConfig?: Pick<Config, 'adminMfaRequired'>;
  /** Set by sendCachedJson: the public read's cached answer this response sends. */
  publicAnswer?: CachedJson;
}

export type AppContext = Context & { state: AppState };

export function requireUser(ctx: Context): SessionUser {
  const user = (ctx.state as AppState).user;
  if (!user) throw errors.unauthenticated();
  return user;
}

export function requireAdmin(ctx: Context): SessionUser {
  const user = requireUser(ctx);
  if (!user.isAdmin) throw errors.forbidden('Acesso restrito a administradores.');
  return user;
}

/**
 * A router under /api/admin whose every matched route first requires an admin (the user and
 * is_admin were read from the database for this request by the bearer middleware, RULES U1,
 * never from a token claim) that the admin access rule lets in (auth/access.ts: two-factor
 * sign-in when ADMIN_MFA_REQUIRED), and is never cached. Every module's admin routes start here.
 */
export function adminRouter(): Router<AppState> {
  const r = new Router<AppState>({ prefix: '/api/admin' });
  r.use(async (ctx, next) => {
    // Fails closed: an app that did not say whether two factors are required requires them.
    const refusal = adminAccessRefusal(requireUser(ctx), ctx.state.accessConfig ?? { adminMfaRequired: true });
    if (refusal) throw refusal;
    ctx.set('Cache-Control', 'no-store');
    await next();
  });
  return r;
}

/** Parses with zod; a ZodError becomes a 400 with details in the error middleware. */
export function parse<T>(schema: ZodType<T>, data: unknown): T {
  return schema.parse(data);
}

export function body(ctx: Context): unknown {
  return (ctx.request as unknown as { body?: unknown }).body ?? {};
}

export function clientIp(ctx: Context): string {
  return ctx.ip || 'unknown';
}
