import { initialPurchase, purchaseReducer, type PurchaseEvent, type PurchaseState } from '../../web/src/pages/purchase/purchaseMachine';
import type { Product } from '../../web/src/api/types';
import type { PixPayment } from '../../src/shared/api/payments';

const product = { id: 3, title: 'Guia', sku: 'EBOOK-A' } as unknown as Product;
const target = { product, unitPriceCents: 1000 };
const pix = (id: number) => ({ paymentId: id, id, status: 'pending', expires_at: '2030-01-01T00:00:00Z' }) as unknown as PixPayment;
const run = (events: PurchaseEvent[], from: PurchaseState = initialPurchase) => events.reduce(purchaseReducer, from);

describe('the purchase state machine', () => {
  test('quantity → pay → PIX created → approved, with the quantity clamped to 1..20', () => {
    let s = run([
      { type: 'open-quantity', target },
      { type: 'set-quantity', quantity: 25 },
    ]);
    expect(s.step).toEqual({ kind: 'quantity', target, quantity: 20 });
    s = run([{ type: 'set-quantity', quantity: 3 }, { type: 'pay' }], s);
    expect(s.step).toMatchObject({ kind: 'pix', quantity: 3, payment: null });
    const session = s.session;
    s = run([{ type: 'pix-created', session, payment: pix(9) }], s);
    expect(s.step).toMatchObject({ kind: 'pix', payment: { id: 9 } });
    s = run([{ type: 'approved', session }], s);
    expect(s.step).toMatchObject({ kind: 'approved', step: 0, percent: 10, payment: { id: 9 } });
    expect(s.session).toBe(session + 1);
    // A second approval (poll and 'Já paguei' both saw it) changes nothing.
    expect(run([{ type: 'approved', session }], s)).toBe(s);
    s = run(
      [
        { type: 'creep', step: 5, max: 90 },
        { type: 'progress', step: 2, percent: 40 },
        { type: 'progress', step: 3, percent: 100 },
      ],
      s,
    );
    expect(s.step).toMatchObject({ kind: 'approved', step: 3, percent: 100 });
  });

  test('answers of a closed dialog or a replaced code are ignored', () => {
    let s = run([{ type: 'open-quantity', target }, { type: 'pay' }]);
    const first = s.session;
    s = run([{ type: 'close' }], s);
    expect(s.step).toEqual({ kind: 'idle' });
    expect(run([{ type: 'pix-created', session: first, payment: pix(1) }], s)).toBe(s);
    expect(run([{ type: 'approved', session: first }], s)).toBe(s);

    s = run([{ type: 'open-quantity', target }, { type: 'pay' }], s);
    const second = s.session;
    s = run(
      [
        { type: 'pix-created', session: second, payment: pix(2) },
        { type: 'dead', session: second, status: 'expirado' },
      ],
      s,
    );
    expect(s.step).toMatchObject({ kind: 'pix', deadStatus: 'expirado' });
    // 'Gerar novo código': a new session; the old code's late answers no longer count.
    s = run([{ type: 'pay' }], s);
    expect(s.step).toMatchObject({ kind: 'pix', payment: null, deadStatus: null });
    expect(run([{ type: 'approved', session: second }], s)).toBe(s);
  });

  test("'Já paguei' answers inside the PIX dialog; the poll's failure is flagged until one succeeds", () => {
    let s = run([{ type: 'open-quantity', target }, { type: 'pay' }]);
    const session = s.session;
    s = run(
      [
        { type: 'pix-created', session, payment: pix(4) },
        { type: 'check-started', session },
      ],
      s,
    );
    expect(s.step).toMatchObject({ checking: true, answer: null });
    s = run([{ type: 'check-answered', session, answer: { tone: 'info', title: 'Status: pendente' } }], s);
    expect(s.step).toMatchObject({ checking: false, answer: { title: 'Status: pendente' } });
    s = run([{ type: 'poll', session, failing: true }], s);
    expect(s.step).toMatchObject({ pollFailing: true });
    s = run([{ type: 'poll', session, failing: false }], s);
    expect(s.step).toMatchObject({ pollFailing: false });
    // A failed charge goes back to idle.
    expect(run([{ type: 'pix-failed', session }], s).step).toEqual({ kind: 'idle' });
  });
});
