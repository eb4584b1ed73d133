import { body, requireUser } from '../platform/http/context';
import { type PaymentsService } from './service';
import type { ParticipationsService } from './participations';
import { sendUserRead, type UserReadCache } from '../platform/user-read-cache';
import { routes } from '../platform/http/routes';

export function paymentsRoutes(payments: PaymentsService, participations: ParticipationsService, userReads: UserReadCache) {
  const r = routes();

  r.post('/payments/infoproduct', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.status = 201;
    ctx.body = await payments.createInfoproductPayment(user.id, body(ctx));
  });

  r.post('/payments/pix', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.status = 201;
    ctx.body = await payments.createReservationPix(user.id, body(ctx));
  });

  r.get('/payments/me', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    await sendUserRead(ctx, userReads, user.id, async () => ({ items: await participations.list(user.id) }));
  });

  r.get('/payments/:id/status', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    await sendUserRead(ctx, userReads, user.id, () => payments.status(user.id, ctx.params.id));
  });

  r.post('/purchases/confirm', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.body = await payments.confirmPurchase(user.id, body(ctx));
  });

  // The provider's notifications (this path is registered at Mercado Pago): any call is only a hint;
  // the payments it names are re-fetched from the provider (RULES P8).
  r.post('/webhooks/mercadopago', 'public', async (ctx) => {
    const res = await payments.handleProviderNotification({
      headers: { 'x-signature': ctx.get('x-signature') || undefined, 'x-request-id': ctx.get('x-request-id') || undefined },
      query: ctx.query as Record<string, unknown>,
      body: body(ctx),
    });
    ctx.status = res.status;
    ctx.body = res.body;
  });

  // The admin's sandbox approval lives with the other admin payment routes (payments/admin-routes.ts).

  return r;
}
