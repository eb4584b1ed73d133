import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { buildBrCode } from '../../src/payments/brcode';
import { newTxid, qrPngBase64 } from '../../src/payments/providers/sandbox';
import { signWebhook } from '../../src/payments/providers/mercadopago';

/**
 * A local stand-in for the part of Mercado Pago's REST API the app uses:
 *   POST /v1/payments      (PIX; Bearer token; X-Idempotency-Key → same payment)
 *   GET  /v1/payments/:id  (404 for unknown ids)
 *   PUT  /v1/payments/:id  ({status: 'cancelled'}: cancels a pending payment, 400 otherwise)
 * plus test controls: setStatus(), notify() (a signed webhook, as Mercado Pago
 * sends it), failNext() (5xx answers) and a request log.
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

export interface FakeMercadoPago {
  url: string;
  token: string;
  payments: Map<number, FakeMpPayment>;
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
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep text */
      }
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
