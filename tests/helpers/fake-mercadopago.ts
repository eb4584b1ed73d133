import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { buildBrCode } from '../../src/payments/brcode';
import { newTxid, qrPngBase64 } from '../../src/payments/providers/sandbox';
import { signWebhook } from '../../src/payments/providers/mercadopago';
import { jsonOrText } from './http';

/**
 * A local stand-in for the part of Mercado Pago's REST API the app uses:
 *   POST /v1/payments      (PIX; Bearer token; X-Idempotency-Key → same payment)
 *   GET  /v1/payments/:id  (404 for unknown ids)
 *   PUT  /v1/payments/:id  ({status: 'cancelled'}: cancels a pending payment, 400 otherwise)
 *   POST /v1/payments/:id/refunds (full refund of an approved payment, at once as the sandbox
 *        does; X-Idempotency-Key → the same refund; 400 for a payment not approved)
 *   GET  /v1/customers/search?email=     (autopay: the user's customer)
 *   POST /v1/customers                   (400 when the e-mail already has one)
 *   POST /v1/customers/:id/cards {token} (a token from cardToken(): single use)
 *   POST /v1/payments {card_id, payer: {type: 'customer', id}} (saved-card charge, binary mode:
 *        card …0002 rejected, …0003 answers 500 twice per idempotency key, then approves)
 * plus test controls: setStatus(), notify() (a signed webhook, as Mercado Pago
 * sends it), failNext() (5xx answers), cardToken() (what MercadoPago.js's
 * createCardToken gives the browser) and a request log.
 */
export type FakeMpStatus = 'pending' | 'approved' | 'rejected' | 'cancelled' | 'refunded' | 'charged_back' | 'in_process';

export interface FakeMpPayment {
  id: number;
  status: FakeMpStatus;
  status_detail: string;
  transaction_amount: number;
  description: string;
  payment_method_id: string;
  external_reference: string | null;
  notification_url: string | null;
  date_created: string;
  date_of_expiration: string | null;
  date_approved: string | null;
  date_last_updated: string;
  payer: unknown;
  point_of_interaction: { type: string; transaction_data: { qr_code: string; qr_code_base64: string; transaction_id: string; ticket_url: string } };
}

export interface FakeMpRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  status: number;
}

export interface NotifyOptions {
  secret: string;
  requestId?: string;
  /** Signature timestamp; defaults to now, in seconds as Mercado Pago sends it. */
  ts?: number;
  /** Sign correctly, then flip one hex digit of v1. */
  tamper?: boolean;
  /** Sign this id instead of the one delivered (a signature made for another payment). */
  signedId?: string;
  type?: string;
  /** Leave out x-signature entirely. */
  unsigned?: boolean;
}

export interface FakeMpCustomer {
  id: string;
  email: string;
  first_name?: string;
  identification?: unknown;
}

export interface FakeMpCard {
  id: string;
  customer_id: string;
  last_four_digits: string;
  first_six_digits: string;
  payment_method: { id: string };
}

export interface FakeMercadoPago {
  url: string;
  token: string;
  payments: Map<number, FakeMpPayment>;
  customers: Map<string, FakeMpCustomer>;
  cards: Map<string, FakeMpCard>;
  /** A card token as MercadoPago.js makes it in the browser (the card number never reaches the app). */
  cardToken(cardNumber: string): string;
  requests: FakeMpRequest[];
  /** Moves a payment to a status (sets date_approved on approval). */
  setStatus(id: number | string, status: FakeMpStatus): FakeMpPayment;
  /** The next n API calls (optionally only those matching method) answer with this status. */
  failNext(n: number, status?: number, method?: 'GET' | 'POST' | 'PUT'): void;
  /** POSTs a signed payment notification to the app, like Mercado Pago does. */
  notify(appUrl: string, id: number | string, o: NotifyOptions): Promise<{ status: number; body: any }>;
  /** Builds (without sending) the request a notification would be. */
  notification(appUrl: string, id: number | string, o: NotifyOptions): { url: string; init: RequestInit };
  count(method: string, pathPrefix: string): number;
  close(): Promise<void>;
}

const MP_STATUS_DETAIL: Record<FakeMpStatus, string> = {
  pending: 'pending_waiting_transfer',
  in_process: 'pending_review_manual',
  approved: 'accredited',
  rejected: 'rejected_by_bank',
  cancelled: 'expired',
  refunded: 'refunded',
  charged_back: 'settled',
};

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeMercadoPago(opts: { token?: string; firstId?: number; realQr?: boolean } = {}): Promise<FakeMercadoPago> {
  const token = opts.token ?? `TEST-${randomUUID()}`;
  const payments = new Map<number, FakeMpPayment>();
  // Registered before any await, so concurrent requests with one key get one payment.
  const byIdempotencyKey = new Map<string, Promise<FakeMpPayment>>();
  const requests: FakeMpRequest[] = [];
  const failures: Array<{ status: number; method?: string }> = [];
  let nextId = opts.firstId ?? 1_300_000_001;
  const customers = new Map<string, FakeMpCustomer>();
  const cards = new Map<string, FakeMpCard>();
  const cardTokens = new Map<string, { last4: string; first6: string; brand: string; used: boolean }>();
  const transientTries = new Map<string, number>();
  let seqCustomer = 0;
  const refundsByKey = new Map<string, { id: number; payment_id: number; amount: number; status: string; date_created: string }>();
  let nextRefundId = 9_100_000_001;

  const send = (res: http.ServerResponse, log: FakeMpRequest, status: number, body: unknown) => {
    log.status = status;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const log: FakeMpRequest = { method: req.method ?? '', path: url.pathname, headers: req.headers, body, status: 0 };
    requests.push(log);

    const fi = failures.findIndex((f) => !f.method || f.method === req.method);
    if (fi >= 0) {
      const [f] = failures.splice(fi, 1);
      return send(res, log, f.status, { message: 'fake failure', error: 'internal_error', status: f.status, cause: [] });
    }
    if (req.headers.authorization !== `Bearer ${token}`) {
      return send(res, log, 401, { message: 'invalid access token', error: 'unauthorized', status: 401, cause: [{ code: 2002, description: 'invalid access token' }] });
    }

    if (req.method === 'GET' && url.pathname === '/v1/customers/search') {
      const email = url.searchParams.get('email');
      const results = [...customers.values()].filter((c) => !email || c.email === email);
      return send(res, log, 200, { paging: { limit: 10, offset: 0, total: results.length }, results });
    }
    if (req.method === 'POST' && url.pathname === '/v1/customers') {
      if (!body?.email) return send(res, log, 400, { message: 'email is required', error: 'bad_request', status: 400 });
      if ([...customers.values()].some((c) => c.email === body.email)) {
        return send(res, log, 400, { message: 'the customer already exist', error: 'bad_request', status: 400, cause: [{ code: '101', description: 'the customer already exist' }] });
      }
      const c: FakeMpCustomer = { id: `${++seqCustomer}-fakecus${randomUUID().slice(0, 8)}`, email: body.email, first_name: body.first_name, identification: body.identification };
      customers.set(c.id, c);
      return send(res, log, 201, c);
    }
    const cm = /^\/v1\/customers\/([^/]+)\/cards$/.exec(url.pathname);
    if (req.method === 'POST' && cm) {
      const customer = customers.get(decodeURIComponent(cm[1]));
      if (!customer) return send(res, log, 404, { message: 'customer not found', error: 'not_found', status: 404 });
      const tok = typeof body?.token === 'string' ? cardTokens.get(body.token) : undefined;
      if (!tok || tok.used) return send(res, log, 400, { message: 'invalid card token', error: 'bad_request', status: 400, cause: [{ code: 'E301', description: 'invalid token' }] });
      tok.used = true;
      const card: FakeMpCard = { id: String(9_000_000_000 + cards.size + 1), customer_id: customer.id, last_four_digits: tok.last4, first_six_digits: tok.first6, payment_method: { id: tok.brand } };
      cards.set(card.id, card);
      return send(res, log, 201, card);
    }

    if (req.method === 'POST' && url.pathname === '/v1/payments' && body?.card_id !== undefined) {
      // A saved-card charge (autopay): customer + card ids, binary mode.
      const key = req.headers['x-idempotency-key'];
      const card = cards.get(String(body.card_id));
      if (!card || body?.payer?.type !== 'customer' || body?.payer?.id !== card.customer_id || typeof body?.transaction_amount !== 'number') {
        return send(res, log, 400, { message: 'invalid card or customer', error: 'bad_request', status: 400 });
      }
      if (card.last_four_digits === '0003' && typeof key === 'string' && !byIdempotencyKey.has(key)) {
        const tries = (transientTries.get(key) ?? 0) + 1;
        transientTries.set(key, tries);
        if (tries <= 2) return send(res, log, 500, { message: 'internal error', error: 'internal_error', status: 500 });
      }
      const known = typeof key === 'string' ? byIdempotencyKey.get(key) : undefined;
      if (known) return send(res, log, 201, await known);
      const created = (async () => {
        const p = await createPayment({ ...body, payment_method_id: card.payment_method.id }, body.transaction_amount);
        p.payment_method_id = card.payment_method.id;
        (p as unknown as { card: unknown }).card = { id: card.id, last_four_digits: card.last_four_digits };
        fake.setStatus(p.id, card.last_four_digits === '0002' ? 'rejected' : 'approved');
        if (card.last_four_digits === '0002') p.status_detail = 'cc_rejected_other_reason';
        return p;
      })();
      if (typeof key === 'string') byIdempotencyKey.set(key, created);
      return send(res, log, 201, await created);
    }

    if (req.method === 'POST' && url.pathname === '/v1/payments') {
      const key = req.headers['x-idempotency-key'];
      const known = typeof key === 'string' ? byIdempotencyKey.get(key) : undefined;
      if (known) return send(res, log, 201, await known);
      const amount = body?.transaction_amount;
      if (typeof amount !== 'number' || !(amount > 0) || body?.payment_method_id !== 'pix' || !body?.payer?.email) {
        return send(res, log, 400, { message: 'invalid parameters', error: 'bad_request', status: 400, cause: [{ code: 4020, description: 'transaction_amount, payment_method_id=pix and payer.email are required' }] });
      }
      const created = createPayment(body, amount);
      if (typeof key === 'string') byIdempotencyKey.set(key, created);
      return send(res, log, 201, await created);
    }

    const rm = /^\/v1\/payments\/([^/]+)\/refunds$/.exec(url.pathname);
    if (req.method === 'POST' && rm) {
      const p = payments.get(Number(rm[1]));
      if (!p || !/^\d+$/.test(rm[1])) return send(res, log, 404, { message: 'Payment not found', error: 'not_found', status: 404 });
      const key = req.headers['x-idempotency-key'];
      const known = typeof key === 'string' ? refundsByKey.get(key) : undefined;
      if (known) return send(res, log, 201, known);
      if (p.status !== 'approved') {
        return send(res, log, 400, { message: 'Payment not refundable', error: 'bad_request', status: 400, cause: [{ code: 2085, description: 'invalid status' }] });
      }
      fake.setStatus(p.id, 'refunded');
      const refund = { id: nextRefundId++, payment_id: p.id, amount: p.transaction_amount, status: 'approved', date_created: new Date().toISOString() };
      if (typeof key === 'string') refundsByKey.set(key, refund);
      return send(res, log, 201, refund);
    }

    const m = /^\/v1\/payments\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && m) {
      const p = payments.get(Number(m[1]));
      if (!p || !/^\d+$/.test(m[1])) return send(res, log, 404, { message: 'Payment not found', error: 'not_found', status: 404, cause: [{ code: 2000, description: 'Payment not found' }] });
      return send(res, log, 200, p);
    }
    // Cancelling: only a pending payment can be cancelled (as Mercado Pago answers 400 otherwise).
    if (req.method === 'PUT' && m) {
      const p = payments.get(Number(m[1]));
      if (!p || !/^\d+$/.test(m[1])) return send(res, log, 404, { message: 'Payment not found', error: 'not_found', status: 404, cause: [{ code: 2000, description: 'Payment not found' }] });
      if (body?.status !== 'cancelled') return send(res, log, 400, { message: 'invalid status', error: 'bad_request', status: 400 });
      if (p.status !== 'pending' && p.status !== 'in_process') {
        return send(res, log, 400, { message: 'Invalid operation: payment cannot be cancelled', error: 'bad_request', status: 400, cause: [{ code: 2063, description: 'status' }] });
      }
      fake.setStatus(p.id, 'cancelled');
      return send(res, log, 200, p);
    }
    return send(res, log, 404, { message: 'resource not found', error: 'not_found', status: 404 });
  });

  async function createPayment(body: any, amount: number): Promise<FakeMpPayment> {
    const id = nextId++;
    const txid = newTxid();
    const cents = Math.round(amount * 100);
    const qr = buildBrCode({ key: 'fake-mp@example.com', merchantName: 'MERCADO PAGO FAKE', merchantCity: 'OSASCO', amountCents: cents, txid, singleUse: true });
    const now = new Date().toISOString();
    const p: FakeMpPayment = {
      id,
      status: 'pending',
      status_detail: MP_STATUS_DETAIL.pending,
      transaction_amount: amount,
      description: String(body.description ?? ''),
      payment_method_id: 'pix',
      external_reference: body.external_reference ?? null,
      notification_url: body.notification_url ?? null,
      date_created: now,
      date_of_expiration: body.date_of_expiration ?? null,
      date_approved: null,
      date_last_updated: now,
      payer: body.payer ?? null,
      point_of_interaction: {
        type: 'PIX',
        transaction_data: {
          qr_code: qr,
          // A real 240×240 PNG is slow-ish; the bench can ask for a placeholder.
          qr_code_base64: opts.realQr === false ? Buffer.from(`png:${id}`).toString('base64') : await qrPngBase64(qr),
          transaction_id: `E${id}${txid}`.slice(0, 32),
          ticket_url: `https://fake.mercadopago.test/payments/${id}/ticket`,
        },
      },
    };
    payments.set(id, p);
    return p;
  }
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeMercadoPago = {
    url,
    token,
    payments,
    customers,
    cards,
    cardToken(cardNumber) {
      const digits = cardNumber.replace(/\D/g, '');
      const id = `fake-tok-${randomUUID()}`;
      const brand = digits.startsWith('4') ? 'visa' : digits.startsWith('3') ? 'amex' : 'master';
      cardTokens.set(id, { last4: digits.slice(-4), first6: digits.slice(0, 6), brand, used: false });
      return id;
    },
    requests,
    setStatus(id, status) {
      const p = payments.get(Number(id));
      if (!p) throw new Error(`fake mercadopago: no payment ${id}`);
      p.status = status;
      p.status_detail = MP_STATUS_DETAIL[status];
      p.date_last_updated = new Date().toISOString();
      if (status === 'approved' && !p.date_approved) p.date_approved = p.date_last_updated;
      return p;
    },
    failNext(n, status = 500, method) {
      for (let i = 0; i < n; i++) failures.push({ status, method });
    },
    notification(appUrl, id, o) {
      const dataId = String(id);
      const requestId = o.requestId ?? randomUUID();
      const ts = o.ts ?? Math.floor(Date.now() / 1000);
      let signature = signWebhook(o.secret, o.signedId ?? dataId, requestId, ts);
      if (o.tamper) {
        const i = signature.length - 1;
        signature = signature.slice(0, i) + (signature[i] === '0' ? '1' : '0');
      }
      const type = o.type ?? 'payment';
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': requestId };
      if (!o.unsigned) headers['x-signature'] = signature;
      return {
        url: `${appUrl}/api/webhooks/mercadopago?data.id=${encodeURIComponent(dataId)}&type=${encodeURIComponent(type)}`,
        init: {
          method: 'POST',
          headers,
          body: JSON.stringify({
            id: Math.floor(Math.random() * 1e12),
            live_mode: false,
            type,
            date_created: new Date().toISOString(),
            user_id: 123456,
            api_version: 'v1',
            action: 'payment.updated',
            data: { id: dataId },
          }),
        },
      };
    },
    async notify(appUrl, id, o) {
      const { url: u, init } = fake.notification(appUrl, id, o);
      const res = await fetch(u, init);
      const text = await res.text();
      const body = jsonOrText(text);
      return { status: res.status, body };
    },
    count(method, pathPrefix) {
      return requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix)).length;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
