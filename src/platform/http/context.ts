import type { Context } from 'koa';
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
  tokenId: number;
}

export interface AppState {
  requestId: string;
  log: Logger;
  user: SessionUser | null;
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
