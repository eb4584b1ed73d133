import type { ParticipationItem } from '../../src/shared/api/account';
import {
  buildParticipationRows,
  dedupeEntries,
  drawResult,
  isLapsed,
  paymentEntryStatus,
  paymentLabel,
  reservationEntryStatus,
  resultBadge,
  rowTarget,
  type DrawInfo,
  type Entry,
  type ReservationLike,
} from '../../web/src/pages/account/participations';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();
const inMin = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

function payment(p: Partial<ParticipationItem> & Pick<ParticipationItem, 'id'>): ParticipationItem {
  return {
    kind: 'reservation',
    draw_id: 7,
    draw: { id: 7, title: 'Guia', status: 'open', result: 'open', infoproduct_id: 1, sku: 'EBOOK-A', winner_number: null, won: null },
    numbers: [],
    status: 'approved',
    amount_cents: 1000,
    quantity: null,
    vouchers_granted: null,
    infoproduct_id: 1,
    reservation_id: null,
    created_at: at(60),
    paid_at: at(59),
    expires_at: inMin(30),
    pix: null,
    result: p.draw?.result ?? 'open',
    receipt: null,
    ...p,
  };
}

function hold(r: Partial<ReservationLike> & Pick<ReservationLike, 'id'>): ReservationLike {
  return { draw_id: 7, numbers: [], status: 'active', created_at: at(2), expires_at: inMin(13), ...r };
}

function entry(e: Partial<Entry>): Entry {
  return { drawId: 1, n: 1, status: 'pending', time: at(1), expiresAt: null, paymentId: null, reservationId: null, ...e };
}

describe('status mappings (account spec §4), switched on the typed statuses of src/shared/api', () => {
  it('payments: approved is PAGO, everything else PENDENTE; dead payments count as expired', () => {
    const all = ['approved', 'pending', 'rejected', 'cancelled', 'expired', 'refunded', 'charged_back'] as const;
    expect(all.map(paymentLabel)).toEqual(['PAGO', 'PENDENTE', 'PENDENTE', 'PENDENTE', 'PENDENTE', 'PENDENTE', 'PENDENTE']);
    expect(all.map(paymentEntryStatus)).toEqual(['approved', 'pending', 'expired', 'expired', 'expired', 'expired', 'expired']);
  });

  it('reservations: paid and consumed → approved, active → pending, expired and cancelled → expired', () => {
    const all = ['paid', 'consumed', 'active', 'expired', 'cancelled'] as const;
    expect(all.map(reservationEntryStatus)).toEqual(['approved', 'approved', 'pending', 'expired', 'expired']);
  });
});

describe('result badges', () => {
  it('one badge per result word of the server', () => {
    const all = ['contemplado', 'nao contemplado', 'sorteado', 'closed', 'open'] as const;
    expect(all.map(resultBadge)).toEqual(['CONTEMPLADO', 'NÃO CONTEMPLADO', 'SORTEADO', 'FECHADO', 'ABERTO']);
  });

  it("a row's result is the server's result for the caller; open when the draw is unknown", () => {
    expect(drawResult({ result: 'contemplado' })).toBe('contemplado');
    expect(drawResult({ result: 'nao contemplado' })).toBe('nao contemplado');
    expect(drawResult({ result: 'closed' })).toBe('closed');
    expect(drawResult(null)).toBe('open');
  });
});

describe('dedupe by draw+number', () => {
  it('keeps the highest rank: approved above pending above expired', () => {
    const out = dedupeEntries([
      entry({ n: 5, status: 'expired', time: at(1) }),
      entry({ n: 5, status: 'approved', time: at(30) }),
      entry({ n: 5, status: 'pending', time: at(2) }),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0].status).toBe('approved');
  });

  it('ties go to the latest time', () => {
    const out = dedupeEntries([
      entry({ n: 5, status: 'pending', time: at(10), reservationId: 1 }),
      entry({ n: 5, status: 'pending', time: at(3), reservationId: 2 }),
      entry({ n: 5, status: 'pending', time: at(7), reservationId: 3 }),
    ]);
    expect(out.map((e) => e.reservationId)).toEqual([2]);
  });

  it('the same number in two draws is two entries', () => {
    expect(dedupeEntries([entry({ drawId: 1, n: 5 }), entry({ drawId: 2, n: 5 })])).toHaveLength(2);
  });
});

describe('lapsed holds', () => {
  it('a pending entry lapses at expires_at', () => {
    expect(isLapsed(entry({ expiresAt: at(1) }), NOW)).toBe(true);
    expect(isLapsed(entry({ expiresAt: inMin(1) }), NOW)).toBe(false);
  });

  it('without expires_at, at its time plus the reservation window (15 min)', () => {
    expect(isLapsed(entry({ time: at(16) }), NOW)).toBe(true);
    expect(isLapsed(entry({ time: at(14) }), NOW)).toBe(false);
    expect(isLapsed(entry({ time: at(14) }), NOW, 10 * 60_000)).toBe(true);
  });

  it('approved entries never lapse; expired ones always have', () => {
    expect(isLapsed(entry({ status: 'approved', expiresAt: at(100) }), NOW)).toBe(false);
    expect(isLapsed(entry({ status: 'expired', expiresAt: inMin(5) }), NOW)).toBe(true);
  });
});

describe('buildParticipationRows', () => {
  it('one row per draw, numbers sorted, PAGO when every number is paid', () => {
    const rows = buildParticipationRows({
      payments: [
        payment({ id: 1, kind: 'voucher', numbers: [42], status: 'approved', paid_at: at(5), created_at: at(5) }),
        payment({ id: 2, kind: 'voucher', numbers: [7], status: 'approved', paid_at: at(6), created_at: at(6) }),
        payment({ id: 3, kind: 'ebook', numbers: [], draw_id: null, draw: null, quantity: 2 }),
      ],
      reservations: [],
      now: NOW,
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      drawId: 7,
      numbers: [7, 42],
      status: 'approved',
      payment: 'PAGO',
      badge: 'ABERTO',
      empty: false,
      date: at(5),
    });
  });

  it('a draw with any pending number is PENDENTE and pays the newest hold', () => {
    const rows = buildParticipationRows({
      payments: [payment({ id: 1, kind: 'voucher', numbers: [3], status: 'approved' })],
      reservations: [hold({ id: 10, numbers: [8], created_at: at(9) }), hold({ id: 11, numbers: [9], created_at: at(2) })],
      now: NOW,
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      numbers: [3, 8, 9],
      pendingNumbers: [8, 9],
      status: 'pending',
      payment: 'PENDENTE',
      reservationId: 11,
    });
  });

  it('a hold already paid shows once, as paid (the payment outranks the hold)', () => {
    const rows = buildParticipationRows({
      payments: [payment({ id: 5, kind: 'reservation', numbers: [12], status: 'approved', reservation_id: 20 })],
      reservations: [hold({ id: 20, numbers: [12], status: 'active' })],
      now: NOW,
    });
    expect(rows[0]).toMatchObject({ numbers: [12], payment: 'PAGO', reservationId: null });
  });

  it('drops lapsed holds and expired payments; a draw with nothing left has no row', () => {
    const rows = buildParticipationRows({
      payments: [
        payment({ id: 5, numbers: [1], status: 'expired', expires_at: at(10) }),
        payment({ id: 6, numbers: [2], status: 'pending', expires_at: at(1) }),
      ],
      reservations: [
        hold({ id: 20, numbers: [3], expires_at: at(1) }),
        hold({ id: 21, numbers: [4], expires_at: null, created_at: at(20) }),
      ],
      now: NOW,
    });
    expect(rows).toEqual([]);
  });

  it('open draws with vouchers left (bought, so paid) and no entry get an empty PAGO row, first', () => {
    const openDraw: DrawInfo = { id: 9, title: 'Outro', status: 'open', result: 'open', sku: 'EBOOK-B', winner_number: null, won: null };
    const rows = buildParticipationRows({
      payments: [payment({ id: 1, kind: 'voucher', numbers: [3], status: 'approved' })],
      reservations: [],
      draws: [openDraw],
      remaining: { 7: 1, 9: 2, 11: 0 },
      now: NOW,
    });
    expect(rows.map((r) => [r.key, r.empty, r.payment, r.remaining])).toEqual([
      ['empty-9', true, 'PAGO', 2],
      ['draw-7', false, 'PAGO', 1],
    ]);
    expect(rows[0]).toMatchObject({ numbers: [], draw: openDraw, status: 'approved', badge: 'ABERTO' });
  });

  it('an approved e-book purchase is PAGO with its e-book at once, numbers picked or not; its vouchers are to choose', () => {
    const receipt = {
      payment_id: 21,
      provider_transaction_id: 'sbx_21',
      txid: 'tx21',
      amount_cents: 2000,
      paid_at: at(10),
      e2e_id: null,
      method: 'pix' as const,
      description: '2 e-books “Guia” (2 números para escolher no Sorteio #007)',
    };
    const bought = payment({ id: 21, kind: 'ebook', numbers: [], quantity: 2, vouchers_granted: 2, paid_at: at(10), receipt });
    const notPicked = buildParticipationRows({ payments: [bought], reservations: [], remaining: { 7: 2 }, now: NOW });
    expect(notPicked).toHaveLength(1);
    expect(notPicked[0]).toMatchObject({
      key: 'draw-7',
      numbers: [],
      status: 'approved',
      payment: 'PAGO',
      ebook: true,
      remaining: 2,
      empty: true,
      date: at(10),
    });
    expect(notPicked[0].receipts).toEqual([receipt]);

    const onePicked = buildParticipationRows({
      payments: [payment({ id: 3, kind: 'voucher', numbers: [42], paid_at: at(1), created_at: at(1) }), bought],
      reservations: [],
      remaining: { 7: 1 },
      now: NOW,
    });
    expect(onePicked).toHaveLength(1);
    expect(onePicked[0]).toMatchObject({ numbers: [42], payment: 'PAGO', ebook: true, remaining: 1, empty: false });
  });

  it('a PIX still waiting is the only PENDENTE; no e-book before the money is paid', () => {
    const waiting = payment({ id: 30, kind: 'ebook', numbers: [], quantity: 1, status: 'pending', paid_at: null });
    const hold1 = hold({ id: 12, numbers: [5] });
    const rows = buildParticipationRows({ payments: [waiting], reservations: [hold1], remaining: {}, now: NOW });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ numbers: [5], payment: 'PENDENTE', ebook: false });
  });

  it('no empty row for a draw that is no longer open', () => {
    const closed: DrawInfo = { id: 9, title: 'Outro', status: 'closed', result: 'closed', sku: null, winner_number: null, won: null };
    expect(buildParticipationRows({ payments: [], reservations: [], draws: [closed], remaining: { 9: 3 }, now: NOW })).toEqual([]);
  });

  it('result badges come from the draw of the payments list; closed draws offer no vouchers', () => {
    const rows = buildParticipationRows({
      payments: [
        payment({
          id: 1,
          kind: 'voucher',
          numbers: [3],
          draw_id: 4,
          draw: {
            id: 4,
            title: 'Antigo',
            status: 'sorteado',
            result: 'contemplado',
            infoproduct_id: 1,
            sku: 'EBOOK-A',
            winner_number: 3,
            won: true,
          },
        }),
        payment({
          id: 2,
          kind: 'voucher',
          numbers: [5],
          draw_id: 5,
          draw: {
            id: 5,
            title: 'Antigo 2',
            status: 'closed',
            result: 'closed',
            infoproduct_id: 1,
            sku: 'EBOOK-A',
            winner_number: null,
            won: null,
          },
          paid_at: at(100),
        }),
      ],
      reservations: [],
      remaining: { 5: 3 },
      now: NOW,
    });
    expect(rows.map((r) => [r.drawId, r.badge, r.remaining])).toEqual([
      [4, 'CONTEMPLADO', 0],
      [5, 'FECHADO', 0],
    ]);
  });

  it('rows are sorted newest first', () => {
    const rows = buildParticipationRows({
      payments: [
        payment({ id: 1, kind: 'voucher', numbers: [1], draw_id: 1, draw: null, paid_at: at(50) }),
        payment({ id: 2, kind: 'voucher', numbers: [1], draw_id: 2, draw: null, paid_at: at(5) }),
        payment({ id: 3, kind: 'voucher', numbers: [1], draw_id: 3, draw: null, paid_at: at(20) }),
      ],
      reservations: [],
      now: NOW,
    });
    expect(rows.map((r) => r.drawId)).toEqual([2, 3, 1]);
  });
});

describe('row navigation (account spec §2)', () => {
  const base = buildParticipationRows({
    payments: [payment({ id: 1, kind: 'voucher', numbers: [3] })],
    reservations: [],
    now: NOW,
  })[0];

  it('paid rows of closed or decided draws open the draw detail; open draws go home', () => {
    expect(rowTarget({ ...base, draw: { ...base.draw!, status: 'closed' } })).toBe('/me/draw/7');
    expect(rowTarget({ ...base, draw: { ...base.draw!, status: 'sorteado', result: 'nao contemplado' } })).toBe('/me/draw/7');
    expect(rowTarget(base)).toBe('/');
  });

  it('a pending row of a closed draw goes nowhere', () => {
    expect(rowTarget({ ...base, status: 'pending', draw: { ...base.draw!, status: 'closed' } })).toBeNull();
  });
});
