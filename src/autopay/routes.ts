import { body, requireUser } from '../platform/http/context';
import type { AutopayService } from './service';
import { routes, adminRoutes, type RouteHandler } from '../platform/http/routes';

/**
 * Autopay (RULES A1-A5): the customer's captive numbers and saved card, the claims grid, the card
 * tokenization config and the sandbox tokenizer. Everything answers no-store (per-user data).
 */
export function autopayRoutes(s: { autopay: AutopayService }) {
  const r = routes();
  const a = s.autopay;
  const noStore: RouteHandler = (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    return next();
  };

  r.get('/me/autopay', 'customer', noStore, async (ctx) => {
    ctx.body = await a.get(requireUser(ctx).id);
  });
  r.post('/me/autopay', 'customer', noStore, async (ctx) => {
    ctx.body = await a.save(requireUser(ctx).id, body(ctx));
  });
  r.post('/me/autopay/cancel', 'customer', noStore, async (ctx) => {
    ctx.body = await a.cancel(requireUser(ctx).id);
  });
  r.get('/autopay/claims', 'customer', noStore, async (ctx) => {
    ctx.body = await a.claims(requireUser(ctx).id);
  });
  r.get('/autopay/card-config', 'public', noStore, async (ctx) => {
    ctx.body = a.cardConfig();
  });
  // Only while the sandbox provider is active (404 otherwise); logged-in users only.
  r.post('/sandbox/card-tokens', 'customer', noStore, async (ctx) => {
    const user = requireUser(ctx);
    ctx.status = 201;
    ctx.body = await a.tokenize(user.id, body(ctx));
  });
  return r;
}

/** Routes of adminAutopayRoutes (the per-module admin tests use this list). */
export const ADMIN_AUTOPAY_ROUTES = [{ method: 'GET', path: '/api/admin/autopay/runs' }] as const;

/** The admin console's autopay runs (a section of the draw view). */
export function adminAutopayRoutes(s: { autopay: AutopayService }) {
  const r = adminRoutes();
  r.get('/autopay/runs', 'admin', async (ctx) => {
    ctx.body = await s.autopay.listRuns(ctx.query);
  });
  return r;
}
