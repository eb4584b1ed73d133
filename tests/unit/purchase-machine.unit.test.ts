/**
 * The purchase flow's state machine (storefront spec §4 "Purchase flow";
 * web/src/pages/purchase/purchaseMachine.ts), pure: every event in every state, and invariants
 * over generated event sequences. Also the quantity rules it clamps with (storefront spec §5 and
 * §9: 1 to 20 e-books per purchase) and the PIX countdown.
 */
import {
  initialPurchase,
  purchaseReducer,
  type PurchaseEvent,
  type PurchaseState,
  type PurchaseStep,
} from '../../web/src/pages/purchase/purchaseMachine';
import { MAX_QUANTITY, MIN_QUANTITY, clampQuantity, readQuantity } from '../../web/src/pages/purchase/quantity';
import { formatCountdown } from '../../web/src/pages/purchase/countdown';
import type { Product } from '../../web/src/api/types';
import type { PixPayment } from '../../src/shared/api/payments';
import { prng } from './prng';

const product = (id: number) => ({ id, title: `E-book ${id}`, sku: `EB-${id}` }) as unknown as Product;
const target = { product: product(3), unitPriceCents: 1000 };
const other = { product: product(4), unitPriceCents: 500 };
const pix = (id: number) => ({ paymentId: id, id, status: 'pending', expires_at: '2030-01-01T00:00:00Z' }) as unknown as PixPayment;
const run = (events: PurchaseEvent[], from: PurchaseState = initialPurchase) => events.reduce(purchaseReducer, from);

/** One state of each kind (and the PIX dialog before and after its charge exists). */
function states(): Record<string, PurchaseState> {
  const quantity = run([{ type: 'open-quantity', target, quantity: 4 }]);
  const pixWaiting = run([{ type: 'pay' }], quantity);
  const pixShown = run([{ type: 'pix-created', session: pixWaiting.session, payment: pix(9) }], pixWaiting);
  const approved = run([{ type: 'approved', session: pixShown.session }], pixShown);
  return { idle: initialPurchase, quantity, pixWaiting, pixShown, approved };
}

describe('the states, one by one', () => {
  const s = states();

  test('the start: idle, session 0, nothing being prepared', () => {
    expect(initialPurchase).toEqual({ step: { kind: 'idle' }, session: 0, preparingId: null });
  });

  test('the states built: quantity 4 → PIX (charge pending, then shown) → approved at 10 %', () => {
    expect(s.quantity.step).toEqual({ kind: 'quantity', target, quantity: 4 });
    expect(s.pixWaiting.step).toEqual({
      kind: 'pix',
      target,
      quantity: 4,
      payment: null,
      checking: false,
      pollFailing: false,
      deadStatus: null,
      answer: null,
    });
    expect(s.pixShown.step).toMatchObject({ kind: 'pix', payment: { id: 9 } });
    expect(s.approved.step).toEqual({ kind: 'approved', target, payment: pix(9), step: 0, percent: 10 });
    expect([s.idle.session, s.quantity.session, s.pixWaiting.session, s.pixShown.session, s.approved.session]).toEqual([0, 0, 1, 1, 2]);
  });

  test("'preparing' only notes the product being loaded, in any state", () => {
    for (const [name, st] of Object.entries(s)) {
      const next = purchaseReducer(st, { type: 'preparing', productId: 12 });
      expect([name, next.step, next.session, next.preparingId]).toEqual([name, st.step, st.session, 12]);
      expect(purchaseReducer(next, { type: 'preparing', productId: null }).preparingId).toBeNull();
    }
  });

  test("'open-quantity' opens the dialog from idle or replaces the quantity dialog; ignored while a PIX or an approval is shown", () => {
    const fromIdle = purchaseReducer({ ...s.idle, preparingId: 3 }, { type: 'open-quantity', target });
    expect(fromIdle).toEqual({ step: { kind: 'quantity', target, quantity: 1 }, session: 0, preparingId: null });
    expect(purchaseReducer(s.quantity, { type: 'open-quantity', target: other, quantity: 2 }).step).toEqual({
      kind: 'quantity',
      target: other,
      quantity: 2,
    });
    for (const st of [s.pixWaiting, s.pixShown, s.approved]) expect(purchaseReducer(st, { type: 'open-quantity', target: other })).toBe(st);
  });

  test("'set-quantity' changes only the quantity dialog", () => {
    expect(purchaseReducer(s.quantity, { type: 'set-quantity', quantity: 7 }).step).toEqual({ kind: 'quantity', target, quantity: 7 });
    for (const st of [s.idle, s.pixWaiting, s.pixShown, s.approved])
      expect(purchaseReducer(st, { type: 'set-quantity', quantity: 7 })).toBe(st);
  });

  test("'pay' starts a new charge (a new session) from the quantity dialog or the PIX dialog ('Gerar novo código'); nothing elsewhere", () => {
    for (const st of [s.quantity, s.pixWaiting, s.pixShown]) {
      const next = purchaseReducer(st, { type: 'pay' });
      expect(next.session).toBe(st.session + 1);
      expect(next.step).toEqual({
        kind: 'pix',
        target,
        quantity: 4,
        payment: null,
        checking: false,
        pollFailing: false,
        deadStatus: null,
        answer: null,
      });
    }
    for (const st of [s.idle, s.approved]) expect(purchaseReducer(st, { type: 'pay' })).toBe(st);
  });

  test("'close' ends whatever is open and starts a new session (late answers of the closed dialog no longer count)", () => {
    for (const st of Object.values(s)) {
      const next = purchaseReducer(st, { type: 'close' });
      expect(next.step).toEqual({ kind: 'idle' });
      expect(next.session).toBe(st.session + 1);
      expect(next.preparingId).toBe(st.preparingId);
    }
  });

  const pixEvents = (session: number): PurchaseEvent[] => [
    { type: 'pix-created', session, payment: pix(5) },
    { type: 'pix-failed', session },
    { type: 'check-started', session },
    { type: 'check-answered', session, answer: { tone: 'info', title: 'Pendente' } },
    { type: 'check-finished', session },
    { type: 'poll', session, failing: true },
    { type: 'dead', session, status: 'expirado' },
    { type: 'approved', session },
  ];

  test('every PIX answer outside a PIX dialog, or of another session, changes nothing', () => {
    for (const st of Object.values(s)) {
      const sessions = st.step.kind === 'pix' ? [st.session - 1, st.session + 1] : [st.session - 1, st.session, st.session + 1];
      for (const session of sessions)
        for (const e of pixEvents(session)) expect([e.type, session, purchaseReducer(st, e)]).toEqual([e.type, session, st]);
    }
  });

  test("'pix-created' shows the code; 'pix-failed' goes back to idle with a new session", () => {
    const st = s.pixWaiting;
    expect(purchaseReducer(st, { type: 'pix-created', session: st.session, payment: pix(5) }).step).toMatchObject({
      kind: 'pix',
      payment: { id: 5 },
    });
    expect(purchaseReducer(st, { type: 'pix-failed', session: st.session })).toEqual({
      ...st,
      session: st.session + 1,
      step: { kind: 'idle' },
    });
  });

  test("'Já paguei': checking, then the answer (which clears on the next check); 'check-finished' without an answer just stops checking", () => {
    const st = s.pixShown;
    const session = st.session;
    const checking = purchaseReducer(st, { type: 'check-started', session });
    expect(checking.step).toMatchObject({ checking: true, answer: null });
    const answered = purchaseReducer(checking, { type: 'check-answered', session, answer: { tone: 'warning', title: 'Ainda não' } });
    expect(answered.step).toMatchObject({ checking: false, answer: { tone: 'warning', title: 'Ainda não' } });
    expect(purchaseReducer(answered, { type: 'check-started', session }).step).toMatchObject({ checking: true, answer: null });
    expect(purchaseReducer(checking, { type: 'check-finished', session }).step).toMatchObject({ checking: false, answer: null });
    // Not checking: 'check-finished' is nothing (the same state object, no re-render).
    expect(purchaseReducer(answered, { type: 'check-finished', session })).toBe(answered);
  });

  test("'poll' flags a failing poll and clears it; the same flag again is the same state", () => {
    const st = s.pixShown;
    const failing = purchaseReducer(st, { type: 'poll', session: st.session, failing: true });
    expect(failing.step).toMatchObject({ pollFailing: true });
    expect(purchaseReducer(failing, { type: 'poll', session: st.session, failing: true })).toBe(failing);
    expect(purchaseReducer(failing, { type: 'poll', session: st.session, failing: false }).step).toMatchObject({ pollFailing: false });
    expect(purchaseReducer(st, { type: 'poll', session: st.session, failing: false })).toBe(st);
  });

  test("'dead' names the status of a code that can no longer be paid", () => {
    expect(purchaseReducer(s.pixShown, { type: 'dead', session: s.pixShown.session, status: 'cancelado' }).step).toMatchObject({
      kind: 'pix',
      deadStatus: 'cancelado',
    });
  });

  test("'approved' needs the charge: before the code exists it is ignored; after, the approval dialog opens once", () => {
    expect(purchaseReducer(s.pixWaiting, { type: 'approved', session: s.pixWaiting.session })).toBe(s.pixWaiting);
    const approved = purchaseReducer(s.pixShown, { type: 'approved', session: s.pixShown.session });
    expect(approved.step).toMatchObject({ kind: 'approved', step: 0, percent: 10 });
    expect(purchaseReducer(approved, { type: 'approved', session: s.pixShown.session })).toBe(approved);
  });

  test("the approval's progress: 'progress' never goes back; 'creep' adds up to its ceiling and no further", () => {
    let st = s.approved;
    st = purchaseReducer(st, { type: 'progress', step: 1, percent: 40 });
    expect(st.step).toMatchObject({ step: 1, percent: 40 });
    st = purchaseReducer(st, { type: 'progress', percent: 20 });
    expect(st.step).toMatchObject({ step: 1, percent: 40 });
    st = purchaseReducer(st, { type: 'creep', step: 30, max: 60 });
    expect(st.step).toMatchObject({ percent: 60 });
    expect(purchaseReducer(st, { type: 'creep', step: 5, max: 60 })).toBe(st);
    expect(purchaseReducer(st, { type: 'creep', step: 5, max: 50 })).toBe(st);
    st = purchaseReducer(st, { type: 'progress', step: 3, percent: 100 });
    expect(st.step).toMatchObject({ step: 3, percent: 100 });
    for (const other of [s.idle, s.quantity, s.pixShown]) {
      expect(purchaseReducer(other, { type: 'progress', percent: 50 })).toBe(other);
      expect(purchaseReducer(other, { type: 'creep', step: 5, max: 90 })).toBe(other);
    }
  });

  test('the quantity is clamped to 1..20 on opening and on every change', () => {
    for (const [q, expected] of [
      [0, 1],
      [-3, 1],
      [2.7, 2],
      [20, 20],
      [21, 20],
      [Number.NaN, 1],
    ]) {
      expect(run([{ type: 'open-quantity', target, quantity: q }]).step).toMatchObject({ quantity: expected });
      expect(run([{ type: 'set-quantity', quantity: q }], s.quantity).step).toMatchObject({ quantity: expected });
    }
  });
});

describe('2,000 generated event sequences', () => {
  const rnd = prng(4242);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const EDGES: Record<PurchaseStep['kind'], Array<PurchaseStep['kind']>> = {
    idle: ['idle', 'quantity'],
    quantity: ['quantity', 'pix', 'idle'],
    pix: ['pix', 'idle', 'approved'],
    approved: ['approved', 'idle'],
  };

  function randomEvent(st: PurchaseState): PurchaseEvent {
    // Mostly the current session, sometimes a stale or a future one.
    const session = st.session + pick([0, 0, 0, 0, -1, 1]);
    return pick<() => PurchaseEvent>([
      () => ({ type: 'preparing', productId: pick([null, 3, 4]) }),
      () => ({ type: 'open-quantity', target: pick([target, other]), quantity: pick([undefined, 0, 3, 25]) }),
      () => ({ type: 'set-quantity', quantity: Math.floor(rnd() * 40) - 10 }),
      () => ({ type: 'pay' }),
      () => ({ type: 'pix-created', session, payment: pix(Math.floor(rnd() * 100)) }),
      () => ({ type: 'pix-failed', session }),
      () => ({ type: 'check-started', session }),
      () => ({ type: 'check-answered', session, answer: pick([null, { tone: 'info' as const, title: 'x' }]) }),
      () => ({ type: 'check-finished', session }),
      () => ({ type: 'poll', session, failing: rnd() < 0.5 }),
      () => ({ type: 'dead', session, status: 'expirado' }),
      () => ({ type: 'approved', session }),
      () => ({ type: 'progress', step: pick([undefined, 1, 2, 3]), percent: Math.floor(rnd() * 110) }),
      () => ({ type: 'creep', step: 1 + Math.floor(rnd() * 10), max: 50 + Math.floor(rnd() * 45) }),
      () => ({ type: 'close' }),
    ])();
  }

  /** What a step of the flow broke, if anything (collected, so 60,000 steps cost no 60,000 expects). */
  function broken(st: PurchaseState, e: PurchaseEvent, next: PurchaseState): string | null {
    if (next.session < st.session) return 'the session went back';
    if (!EDGES[st.step.kind].includes(next.step.kind)) return `${st.step.kind} → ${next.step.kind}`;
    if (
      (next.step.kind === 'quantity' || next.step.kind === 'pix') &&
      (next.step.quantity < MIN_QUANTITY || next.step.quantity > MAX_QUANTITY)
    )
      return `quantity ${next.step.quantity}`;
    if (st.step.kind === 'approved' && next.step.kind === 'approved' && next.step.percent < st.step.percent) return 'progress went back';
    // An answer that names another session, or arrives outside a PIX dialog, is ignored outright.
    if ('session' in e && (e.session !== st.session || st.step.kind !== 'pix') && next !== st) return 'a stale answer changed the state';
    // Only a new charge, a failed one, an approval or a close opens a new session, by one.
    if (next.session !== st.session && (next.session !== st.session + 1 || !['pay', 'pix-failed', 'approved', 'close'].includes(e.type)))
      return `${e.type} moved the session`;
    return null;
  }

  test('the session never goes back; the step moves only along the flow; quantities stay 1..20; progress never goes back', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (let n = 0; n < 2000; n++) {
      let st = initialPurchase;
      for (let i = 0; i < 30; i++) {
        const e = randomEvent(st);
        const next = purchaseReducer(st, e);
        const p = broken(st, e, next);
        if (p) problems.push(`${p} (${st.step.kind} + ${JSON.stringify(e)})`);
        seen.add(`${st.step.kind}→${next.step.kind}`);
        st = next;
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
    // The sequences did walk the whole flow.
    expect([...seen].sort()).toEqual(
      Object.entries(EDGES)
        .flatMap(([from, tos]) => tos.map((to) => `${from}→${to}`))
        .sort(),
    );
  });

  test('the reducer never changes the state it is given', () => {
    for (let n = 0; n < 300; n++) {
      let st = initialPurchase;
      for (let i = 0; i < 12; i++) {
        const copy = JSON.stringify(st);
        const next = purchaseReducer(st, randomEvent(st));
        if (JSON.stringify(st) !== copy) throw new Error(`the state was changed in place: ${copy}`);
        st = next;
      }
    }
  });
});

describe('the quantity field', () => {
  test('the limits: 1 to 20', () => {
    expect([MIN_QUANTITY, MAX_QUANTITY]).toEqual([1, 20]);
    for (let q = -5; q <= 30; q++) expect(clampQuantity(q)).toBe(Math.min(20, Math.max(1, q)));
  });

  test.each([
    ['', { text: '', quantity: null, overLimit: false }],
    ['0', { text: '0', quantity: null, overLimit: false }],
    ['00', { text: '0', quantity: null, overLimit: false }],
    ['007', { text: '7', quantity: 7, overLimit: false }],
    ['1', { text: '1', quantity: 1, overLimit: false }],
    ['20', { text: '20', quantity: 20, overLimit: false }],
    ['21', { text: '20', quantity: 20, overLimit: true }],
    ['999999999', { text: '20', quantity: 20, overLimit: true }],
    ['1a2', { text: '12', quantity: 12, overLimit: false }],
    ['-3', { text: '3', quantity: 3, overLimit: false }],
    ['2,5', { text: '20', quantity: 20, overLimit: true }], // the comma goes, 25 is over the limit
    ['abc', { text: '', quantity: null, overLimit: false }],
  ])('typing %j', (raw, out) => {
    expect(readQuantity(raw)).toEqual(out);
  });
});

describe('the PIX countdown (mm:ss, never negative)', () => {
  test.each([
    [0, '00:00'],
    [-5000, '00:00'],
    [1, '00:01'],
    [999, '00:01'],
    [1000, '00:01'],
    [1001, '00:02'],
    [59_000, '00:59'],
    [60_000, '01:00'],
    [15 * 60_000, '15:00'],
    [75 * 60_000, '75:00'],
  ])('%i ms left → %s', (ms, text) => {
    expect(formatCountdown(ms)).toBe(text);
  });
});
