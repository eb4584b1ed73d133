import { body, requireAdmin } from '../platform/http/context';
import { ReviewPaymentId, type PaymentsReviewService } from './review';
import { adminRoutes } from '../platform/http/routes';

/** The admin console's payments to review. Listed for the route-guard table test. */
export const ADMIN_PAYMENTS_ROUTES = [
  { method: 'GET', path: '/api/admin/payments' },
  { method: 'GET', path: '/api/admin/payments/:id' },
  { method: 'POST', path: '/api/admin/payments/:id/review' },
  { method: 'POST', path: '/api/admin/payments/:id/approve' },
  { method: 'POST', path: '/api/admin/payments/:id/refund' },
] as const;

export function adminPaymentsRoutes(s: { paymentsReview: PaymentsReviewService }) {
  const r = adminRoutes();
  const p = s.paymentsReview;

  r.get('/payments', 'admin', async (ctx) => {
    ctx.body = await p.list(ctx.query);
  });
  r.get('/payments/:id', 'admin', async (ctx) => {
    ctx.body = await p.show(ReviewPaymentId.parse(ctx.params.id));
  });
  r.post('/payments/:id/review', 'admin', async (ctx) => {
    ctx.body = await p.markReviewed({ userId: requireAdmin(ctx).id, via: 'admin' }, ReviewPaymentId.parse(ctx.params.id), body(ctx));
  });
  r.post('/payments/:id/approve', 'admin', async (ctx) => {
    const payment = await p.approveSandbox({ userId: requireAdmin(ctx).id, via: 'admin' }, ReviewPaymentId.parse(ctx.params.id));
    // `paymentId`: the alias the earlier version of this route answered.
    ctx.body = { ...payment, paymentId: payment.id };
  });
  // The operator's refund (console 'Reembolsar'): the provider refunds, then the refund transition.
  r.post('/payments/:id/refund', 'admin', async (ctx) => {
    ctx.body = await p.refund({ userId: requireAdmin(ctx).id, via: 'admin' }, ReviewPaymentId.parse(ctx.params.id), body(ctx));
  });
  return r;
}
