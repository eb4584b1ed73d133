import type { ParticipationItem } from '../../src/shared/api/account';
import { dispositionFilename } from '../../web/src/api/disposition';
import type { ReservationLike } from '../../web/src/pages/account/participations';
import {
  PIX_GENERIC,
  PIX_INACTIVE,
  PIX_ROUTE_MISSING,
  findReservation,
  payParticipation,
  pixErrorText,
  reusablePayment,
  type PayDeps,
  type PixPayment,
} from '../../web/src/pages/account/payFlow';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();
const inMin = (m: number) => new Date(NOW + m * 60_000).toISOString();

const hold = (r: Partial<ReservationLike> & Pick<ReservationLike, 'id'>): ReservationLike => ({
  draw_id: 7,
  numbers: [1],
  status: 'active',
  created_at: at(2),
  expires_at: inMin(10),
  ...r,
});

function pendingPayment(p: Partial<ParticipationItem> & Pick<ParticipationItem, 'id'>): ParticipationItem {
  return {
    kind: 'reservation',
    draw_id: 7,
    draw: null,
    numbers: [1],
    status: 'pending',
    amount_cents: 1000,
    quantity: null,
    vouchers_granted: null,
    infoproduct_id: 1,
    reservation_id: 10,
    created_at: at(1),
    paid_at: null,
    expires_at: inMin(20),
    pix: { qr_code: '000201abc', qr_code_base64: 'iVBOR', copy_paste: '000201abc', txid: 'tx1' },
    result: 'open',
    receipt: null,
    ...p,
  };
}

const created = (id: number): PixPayment => ({
  paymentId: id,
  id,
  status: 'pending',
  qr_code_base64: 'x',
  copy_paste_code: 'c',
  qr_code: 'c',
  amount: 10,
  amount_cents: 1000,
  expires_at: inMin(30),
});

/** What the API client rejects with (web/src/api/client.ts ApiError: status, code, message, fromServer). */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    opts: { fromServer?: boolean } = {},
  ) {
    super(message);
    this.fromServer = opts.fromServer ?? false;
  }
  readonly fromServer: boolean;
}

const inactive = () => new ApiError(400, 'reservation_inactive', 'Sua reserva não está mais ativa.', { fromServer: true });

function deps(over: Partial<PayDeps> & { holds?: ReservationLike[][]; items?: ParticipationItem[] }) {
  const calls: number[] = [];
  const holds = over.holds ?? [[hold({ id: 10 })]];
  let i = 0;
  const d: PayDeps = {
    reservations: async () => holds[Math.min(i++, holds.length - 1)],
    payments: async () => over.items ?? [],
    createPix: async (id) => {
      calls.push(id);
      return created(100 + id);
    },
    now: () => NOW,
    ...over,
  };
  return { d, calls };
}

describe('findReservation', () => {
  it('takes the newest active hold of the draw holding any of the numbers', () => {
    const list = [
      hold({ id: 1, numbers: [1, 2], created_at: at(9) }),
      hold({ id: 2, numbers: [2], created_at: at(3) }),
      hold({ id: 3, numbers: [5], created_at: at(1) }),
      hold({ id: 4, numbers: [2], draw_id: 8, created_at: at(0) }),
      hold({ id: 5, numbers: [2], status: 'expired', created_at: at(0) }),
      hold({ id: 6, numbers: [2], expires_at: at(1), created_at: at(0) }),
    ];
    expect(findReservation(list, 7, [2], NOW)?.id).toBe(2);
    expect(findReservation(list, 7, [9], NOW)).toBeNull();
    expect(findReservation(list, 7, [], NOW)?.id).toBe(3);
  });
});

describe('reusablePayment', () => {
  it('reuses a pending payment of the reservation that has QR data and has not expired', () => {
    const p = reusablePayment([pendingPayment({ id: 50 })], 10, NOW);
    expect(p).toMatchObject({ paymentId: 50, copy_paste_code: '000201abc', qr_code_base64: 'iVBOR', amount_cents: 1000 });
  });

  it('not without QR data, not expired ones, not another reservation', () => {
    expect(reusablePayment([pendingPayment({ id: 50, pix: null })], 10, NOW)).toBeNull();
    expect(reusablePayment([pendingPayment({ id: 50, expires_at: at(1) })], 10, NOW)).toBeNull();
    expect(reusablePayment([pendingPayment({ id: 50, reservation_id: 11 })], 10, NOW)).toBeNull();
    expect(reusablePayment([pendingPayment({ id: 50, status: 'approved' })], 10, NOW)).toBeNull();
  });
});

describe('payParticipation', () => {
  it('reuses an existing pending PIX instead of creating one', async () => {
    const { d, calls } = deps({ items: [pendingPayment({ id: 50 })] });
    await expect(payParticipation(d, 7, [1])).resolves.toMatchObject({ paymentId: 50 });
    expect(calls).toEqual([]);
  });

  it('creates the PIX for the newest active reservation', async () => {
    const { d, calls } = deps({ holds: [[hold({ id: 10, created_at: at(5) }), hold({ id: 12, created_at: at(1) })]] });
    await expect(payParticipation(d, 7, [1])).resolves.toMatchObject({ paymentId: 112 });
    expect(calls).toEqual([12]);
  });

  it('on reservation_inactive looks the reservation up again and retries once with the new one', async () => {
    const calls: number[] = [];
    const { d } = deps({
      holds: [[hold({ id: 10 })], [hold({ id: 11, created_at: at(0) })]],
      createPix: async (id) => {
        calls.push(id);
        if (id === 10) throw inactive();
        return created(100 + id);
      },
    });
    await expect(payParticipation(d, 7, [1])).resolves.toMatchObject({ paymentId: 111 });
    expect(calls).toEqual([10, 11]);
  });

  it('retries only once: a second inactive answer is the inactive error', async () => {
    const calls: number[] = [];
    const { d } = deps({
      holds: [[hold({ id: 10 })], [hold({ id: 11 })], [hold({ id: 12 })]],
      createPix: async (id) => {
        calls.push(id);
        throw inactive();
      },
    });
    await expect(payParticipation(d, 7, [1])).rejects.toBeInstanceOf(ApiError);
    expect(calls).toEqual([10, 11]);
  });

  it('no active reservation: the inactive error without calling the server', async () => {
    const { d, calls } = deps({ holds: [[]] });
    const err = await payParticipation(d, 7, [1]).catch((e) => e);
    expect(pixErrorText(err).title).toBe(PIX_INACTIVE);
    expect(calls).toEqual([]);
  });

  it('other errors are not retried', async () => {
    const calls: number[] = [];
    const { d } = deps({
      createPix: async (id) => {
        calls.push(id);
        throw new ApiError(500, 'internal', 'Erro interno.', { fromServer: true });
      },
    });
    await expect(payParticipation(d, 7, [1])).rejects.toMatchObject({ status: 500 });
    expect(calls).toEqual([10]);
  });
});

describe('PIX error texts (account spec §8)', () => {
  it('maps every case', () => {
    expect(pixErrorText(inactive())).toEqual({ title: PIX_INACTIVE, detail: null });
    expect(pixErrorText(new ApiError(400, 'reservation_expired', 'x', { fromServer: true })).title).toBe(PIX_INACTIVE);
    expect(pixErrorText(new ApiError(404, 'not_found', 'Rota não encontrada.', { fromServer: true })).title).toBe(PIX_ROUTE_MISSING);
    expect(pixErrorText(new ApiError(404, 'reservation_not_found', 'Reserva não encontrada.', { fromServer: true })).title).toBe(
      PIX_INACTIVE,
    );
    expect(pixErrorText(new ApiError(429, 'rate_limited', 'Muitas tentativas.', { fromServer: true }))).toEqual({
      title: 'Falha ao gerar PIX (HTTP 429).',
      detail: 'Muitas tentativas.',
    });
    expect(pixErrorText(new ApiError(502, 'server_unavailable', 'O servidor não está respondendo agora.'))).toEqual({
      title: 'Falha ao gerar PIX (HTTP 502).',
      detail: null,
    });
    expect(pixErrorText(new ApiError(0, 'network_error', 'Sem conexão com o servidor.')).title).toBe(PIX_GENERIC);
    expect(pixErrorText(new Error('boom'))).toEqual({ title: PIX_GENERIC, detail: null });
  });
});

describe('dispositionFilename', () => {
  it('reads filename* first, then filename', () => {
    expect(dispositionFilename('attachment; filename="cotaverde-meus-dados.json"')).toBe('cotaverde-meus-dados.json');
    expect(dispositionFilename('attachment; filename="a.json"; filename*=UTF-8\'\'dados%20%C3%A1.json')).toBe('dados á.json');
    expect(dispositionFilename('attachment; filename=plain.pdf')).toBe('plain.pdf');
    expect(dispositionFilename('attachment')).toBeNull();
    expect(dispositionFilename(null)).toBeNull();
  });
});
