import type Koa from 'koa';
import type { Context } from 'koa';
import type { AccessControl } from './routes';
import type { ZodType } from 'zod';
import { errors } from '../errors';
import type { Logger } from '../logger';
import type { CachedJson } from '../read-cache';

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
  /** The request's bearer token, when it sent one (the 'admin' access check reads its account afresh). */
  bearerToken?: string;
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
 * The access levels' checks (platform/http/routes.ts). 'customer': a signed-in session.
 * 'admin': the account read from the database for this request (RULES U1: never from a cached
 * session or a token claim), an admin, passing `adminRefusal` (the deployment's admin rules);
 * never cached. 'ops': the operations dashboard's cookie session (ops/dashboard.ts).
 */
export function accessControl(deps: {
  authenticateFresh(token: string): Promise<SessionUser | null>;
  adminRefusal?(user: SessionUser): Error | null;
  ops(ctx: Koa.ParameterizedContext<AppState>): Promise<void>;
}): AccessControl {
  return {
    customer(ctx) {
      requireUser(ctx);
    },
    async admin(ctx) {
      const token = ctx.state.bearerToken;
      ctx.state.user = token ? await deps.authenticateFresh(token) : null;
      requireAdmin(ctx);
      const refusal = deps.adminRefusal?.(ctx.state.user as SessionUser);
      if (refusal) throw refusal;
      ctx.set('Cache-Control', 'no-store');
    },
    ops: deps.ops,
  };
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
