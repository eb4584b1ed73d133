import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { buildBrCode } from '../../src/payments/brcode';
import { newTxid, qrPngBase64 } from '../../src/payments/providers/sandbox';
import { signWebhook } from '../../src/payments/providers/mercadopago';
import { jsonOrText } from './http';

/**
 * A strict local model of the part of Mercado Pago's REST API the app uses. It is written from
 * Mercado Pago's documentation and its official Node SDK (mercadopago/sdk-nodejs), never from our
 * adapter: each rule names the page or SDK file it comes from. Where the documentation is silent
 * the fake says so beside the rule. Pages (Mercado Pago Developers, pt-BR):
 *
 *   [REF-PAY]   API reference, "Criar pagamento"  POST /v1/payments
 *               https://www.mercadopago.com.br/developers/pt/reference/payments/_payments/post
 *   [REF-REF]   API reference, "Criar reembolso"  POST /v1/payments/{id}/refunds
 *               https://www.mercadopago.com.br/developers/pt/reference/chargebacks/_payments_id_refunds/post
 *   [SAVED]     "Receber pagamentos com cartões salvos"
 *               https://www.mercadopago.com.br/developers/pt/docs/checkout-api/cards-and-customers-management/receive-payments-with-saved-cards
 *   [AUTO]      "Pagamentos automáticos" / "Tokenizar meio de pagamento"
 *               https://www.mercadopago.com.br/developers/pt/docs/automatic-payments-orders/tokenize-payment-method
 *   [PIX]       "Pix" (Checkout Transparente): date_of_expiration between 30 minutes and 30 days
 *               https://www.mercadopago.com.br/developers/pt/docs/checkout-api/payment-methods/other-payment-methods/pix
 *   [STATUS]    "Status de pagamento" (pending, approved, authorized, in_process, in_mediation,
 *               rejected, cancelled, refunded, charged_back)
 *               https://www.mercadopago.com.br/developers/pt/docs/checkout-api/response-handling/collection-results
 *   [WEBHOOKS]  "Webhooks" (x-signature ts=…,v1=…; manifest id:…;request-id:…;ts:…;)
 *               https://www.mercadopago.com.br/developers/pt/docs/your-integrations/notifications/webhooks
 *   [IPN]       "IPN" (?topic=payment&id=…, merchant_order; `source_news` on notification_url)
 *               https://www.mercadopago.com.br/developers/pt/docs/your-integrations/notifications/ipn
 *   [CHARGEBACK] "Contestações (chargebacks)"  GET /v1/chargebacks/{id}
 *               https://www.mercadopago.com.br/developers/pt/docs/checkout-api/chargebacks
 *   SDK files:  src/clients/payment/create/types.ts (PaymentCreateRequest: token, payer.type/id,
 *               no card_id), src/clients/cardToken/create/types.ts (card_id, customer_id,
 *               security_code), src/clients/customerCard/create/types.ts ({token}),
 *               src/clients/chargeback/get/types.ts (payments: number[]),
 *               src/clients/paymentRefund/create/types.ts ({amount?} + idempotency key),
 *               src/clients/payment/commonTypes.ts (TransactionData: qr_code, qr_code_base64,
 *               transaction_id, bank_transfer_id, financial_institution, bank_info, ticket_url;
 *               the same fields in mercadopago/sdk-go pkg/payment/response.go).
 *   [E2E]       the PIX end-to-end id of a paid PIX: `e2e_id`, the name and the "PIX"-prefixed
 *               form ("PIXE00360305202607260140c5589350187") of Mercado Pago's Orders API answer
 *               (transactions.payments[].payment_method.e2e_id); on a payment it is read from
 *               point_of_interaction.transaction_data.e2e_id. The SDK types above do not list it:
 *               the documentation is silent on whether it is there before approval; here it
 *               appears with the approval, with bank_transfer_id and financial_institution.
 *
 * Test-only knobs (not Mercado Pago behaviour): failNext() answers the next calls with a status;
 * cards whose number ends 0002 are declined and 0003 answer 500 twice per idempotency key
 * (Mercado Pago's own test cards decide by holder name, APRO/OTHE; numbers are simpler here).
 */
export type FakeMpStatus =
  'pending' | 'approved' | 'authorized' | 'in_process' | 'in_mediation' | 'rejected' | 'cancelled' | 'refunded' | 'charged_back';

export interface FakeMpRefund {
  id: number;
  payment_id: number;
  amount: number;
  status: string;
  date_created: string;
}

export interface FakeMpPayment {
  id: number;
  status: FakeMpStatus;
  status_detail: string;
  transaction_amount: number;
  /** [REF-REF] sum of the refunds made (partial ones keep the payment approved). */
  transaction_amount_refunded: number;
  refunds: FakeMpRefund[];
  description: string;
  payment_method_id: string;
  payment_type_id: string;
  external_reference: string | null;
  notification_url: string | null;
  date_created: string;
  date_of_expiration: string | null;
  date_approved: string | null;
  date_last_updated: string;
  binary_mode: boolean;
  payer: unknown;
  card?: { id: string | null; last_four_digits: string; first_six_digits: string };
  point_of_interaction?: {
    type: string;
    transaction_data: {
      qr_code: string;
      qr_code_base64: string;
      transaction_id: string;
      ticket_url: string;
      /** [E2E] once paid. */
      e2e_id?: string;
      bank_transfer_id?: number;
      financial_institution?: number;
    };
  };
}

export interface FakeMpRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  status: number;
  answer: unknown;
}

export interface NotifyOptions {
  secret: string;
  requestId?: string;
  /** Signature timestamp; defaults to now, in seconds. */
  ts?: number;
  /** Sign correctly, then flip one hex digit of v1. */
  tamper?: boolean;
  /** Sign this id instead of the one delivered (a signature made for another payment). */
  signedId?: string;
  /** Topic: payment (default), merchant_order, chargebacks. */
  type?: string;
  /** Leave out x-signature entirely. */
  unsigned?: boolean;
  /** 'webhook' (default: JSON body, data.id and type in the query, signed) or 'ipn' (?topic=…&id=…, no body, unsigned). */
  format?: 'webhook' | 'ipn';
  /** Path and query of the notification URL (default /api/webhooks/mercadopago). */
  path?: string;
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

export interface FakeMpCardToken {
  id: string;
  /** Set when the token was made from a saved card (POST /v1/card_tokens {card_id}). */
  card_id: string | null;
  customer_id: string | null;
  last_four_digits: string;
  first_six_digits: string;
  brand: string;
  /** The token carries a security code (the browser's form asked for it). */
  has_security_code: boolean;
  date_due: string;
  used: boolean;
}

export interface FakeMpChargeback {
  id: string;
  payments: number[];
  amount: number;
  coverage_applied: boolean;
  date_created: string;
}

export interface Delivery {
  url: string;
  init: RequestInit;
  status: number;
  body: unknown;
}

export interface FakeMercadoPago {
  url: string;
  token: string;
  payments: Map<number, FakeMpPayment>;
  customers: Map<string, FakeMpCustomer>;
  cards: Map<string, FakeMpCard>;
  cardTokens: Map<string, FakeMpCardToken>;
  chargebacks: Map<string, FakeMpChargeback>;
  /**
   * [AUTO] Whether Mercado Pago enabled "Pagamentos automáticos" for this application: a payment
   * with a token made from a saved card without its security code is refused otherwise.
   */
  automaticPayments: boolean;
  /** A card token as MercadoPago.js makes it in the browser (with the security code; the number never reaches the app). */
  cardToken(cardNumber: string, o?: { securityCode?: boolean }): string;
  requests: FakeMpRequest[];
  /** Moves a payment to a status as Mercado Pago would (sets date_approved on approval). */
  setStatus(id: number | string, status: FakeMpStatus, detail?: string): FakeMpPayment;
  /** A refund made in Mercado Pago's panel (full when amount is left out). No notification is sent. */
  refundInPanel(id: number | string, amount?: number): FakeMpPayment;
  /** The buyer's bank disputes the payment: a chargeback resource and the payment charged_back. */
  chargeback(id: number | string): FakeMpChargeback;
  /** The next n API calls (optionally only those matching method) answer with this status. */
  failNext(n: number, status?: number, method?: 'GET' | 'POST' | 'PUT'): void;
  /** POSTs a notification to the app, like Mercado Pago does (signed webhook by default). */
  notify(appUrl: string, id: number | string, o: NotifyOptions): Promise<{ status: number; body: any }>;
  /** Builds (without sending) the request a notification would be. */
  notification(appUrl: string, id: number | string, o: NotifyOptions): { url: string; init: RequestInit };
  /**
   * [IPN]/[WEBHOOKS] What Mercado Pago sends for a payment's change to its notification_url (host
   * replaced by appUrl): with `source_news=webhooks` only the signed webhook; with
   * `source_news=ipn` only the IPN calls; with neither, both (IPN payment + merchant_order too).
   */
  deliver(appUrl: string, id: number | string, secret: string): Promise<Delivery[]>;
  /** [WEBHOOKS] Mercado Pago retries a notification that did not answer 200/201: the same request again. */
  redeliver(d: Delivery): Promise<Delivery>;
  count(method: string, pathPrefix: string): number;
  close(): Promise<void>;
}

/** [STATUS] a status_detail per status (the ones the docs list first). */
const MP_STATUS_DETAIL: Record<FakeMpStatus, string> = {
  pending: 'pending_waiting_transfer',
  in_process: 'pending_review_manual',
  authorized: 'pending_capture',
  in_mediation: 'in_mediation',
  approved: 'accredited',
  rejected: 'cc_rejected_other_reason',
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

const bad = (message: string, code: number | string, status = 400) => ({
  status,
  body: {
    message,
    error: status === 400 ? 'bad_request' : status === 401 ? 'unauthorized' : 'not_found',
    status,
    cause: [{ code, description: message }],
  },
});

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export async function startFakeMercadoPago(
  opts: { token?: string; firstId?: number; realQr?: boolean; automaticPayments?: boolean } = {},
): Promise<FakeMercadoPago> {
  const token = opts.token ?? `TEST-${randomUUID()}`;
  const payments = new Map<number, FakeMpPayment>();
  // [REF-PAY] X-Idempotency-Key: the same key answers the same payment. Registered before any
  // await, so concurrent requests with one key get one payment.
  const byIdempotencyKey = new Map<string, Promise<{ status: number; body: unknown }>>();
  const requests: FakeMpRequest[] = [];
  const failures: Array<{ status: number; method?: string }> = [];
  let nextId = opts.firstId ?? 1_300_000_001;
  const customers = new Map<string, FakeMpCustomer>();
  const cards = new Map<string, FakeMpCard>();
  const cardTokens = new Map<string, FakeMpCardToken>();
  const chargebacks = new Map<string, FakeMpChargeback>();
  const transientTries = new Map<string, number>();
  let seqCustomer = 0;
  const refundsByKey = new Map<string, { status: number; body: unknown }>();
  let nextRefundId = 9_100_000_001;

  const newToken = (t: Omit<FakeMpCardToken, 'id' | 'date_due' | 'used'>): FakeMpCardToken => {
    // src/clients/cardToken/get/types.ts: a token has date_due; Mercado Pago's card tokens live 7 days and serve one payment.
    const tok: FakeMpCardToken = {
      ...t,
      id: randomUUID().replace(/-/g, ''),
      date_due: new Date(Date.now() + 7 * DAY).toISOString(),
      used: false,
    };
    cardTokens.set(tok.id, tok);
    return tok;
  };

  /** [REF-PAY] a token is single use and expires (date_due); an unknown, used or expired one is 3003 "Invalid card_token_id". */
  const takeToken = (id: unknown): FakeMpCardToken | null => {
    const tok = typeof id === 'string' ? cardTokens.get(id) : undefined;
    if (!tok || tok.used || new Date(tok.date_due).getTime() <= Date.now()) return null;
    tok.used = true;
    return tok;
  };

  function changed(p: FakeMpPayment) {
    p.date_last_updated = new Date().toISOString();
  }

  async function handle(
    method: string,
    url: URL,
    headers: http.IncomingHttpHeaders,
    body: any,
  ): Promise<{ status: number; body: unknown }> {
    // Every API call carries the application's access token (Authorization: Bearer); a wrong one is 401.
    if (headers.authorization !== `Bearer ${token}`) return bad('invalid access token', 2002, 401);
    const key = typeof headers['x-idempotency-key'] === 'string' ? headers['x-idempotency-key'] : undefined;

    if (method === 'GET' && url.pathname === '/v1/customers/search') {
      const email = url.searchParams.get('email');
      const results = [...customers.values()].filter((c) => !email || c.email === email);
      return { status: 200, body: { paging: { limit: 10, offset: 0, total: results.length }, results } };
    }
    if (method === 'POST' && url.pathname === '/v1/customers') {
      // src/clients/customer/create/types.ts: email is the customer's key; an e-mail already known is 101.
      if (!body?.email) return bad('email is required', 100);
      if ([...customers.values()].some((c) => c.email === body.email)) return bad('the customer already exist', 101);
      const c: FakeMpCustomer = {
        id: `${++seqCustomer}-fakecus${randomUUID().slice(0, 8)}`,
        email: body.email,
        first_name: body.first_name,
        identification: body.identification,
      };
      customers.set(c.id, c);
      return { status: 201, body: c };
    }
    const cm = /^\/v1\/customers\/([^/]+)\/cards$/.exec(url.pathname);
    if (method === 'POST' && cm) {
      // src/clients/customerCard/create/types.ts: {token}. [AUTO] the card is registered from a
      // token the buyer made with the card's security code (the check when it is saved).
      const customer = customers.get(decodeURIComponent(cm[1]));
      if (!customer) return bad('customer not found', 'not_found', 404);
      const tok = takeToken(body?.token);
      if (!tok) return bad('invalid card token', 'E301');
      if (!tok.has_security_code) return bad('security_code_id can not be null', 3031);
      const card: FakeMpCard = {
        id: String(9_000_000_000 + cards.size + 1),
        customer_id: customer.id,
        last_four_digits: tok.last_four_digits,
        first_six_digits: tok.first_six_digits,
        payment_method: { id: tok.brand },
      };
      cards.set(card.id, card);
      return { status: 201, body: card };
    }
    if (method === 'POST' && url.pathname === '/v1/card_tokens') {
      // src/clients/cardToken/create/types.ts: {card_id, customer_id?, security_code?}. [SAVED] a
      // token of a saved card; without security_code it is good only for [AUTO] payments.
      const card = cards.get(String(body?.card_id ?? ''));
      if (!card) return bad('card not found', 'E203', 404);
      if (body?.customer_id != null && String(body.customer_id) !== card.customer_id)
        return bad('card does not belong to the customer', 'E205');
      const tok = newToken({
        card_id: card.id,
        customer_id: card.customer_id,
        last_four_digits: card.last_four_digits,
        first_six_digits: card.first_six_digits,
        brand: card.payment_method.id,
        has_security_code: typeof body?.security_code === 'string' && /^\d{3,4}$/.test(body.security_code),
      });
      return {
        status: 201,
        body: {
          id: tok.id,
          card_id: card.id,
          first_six_digits: tok.first_six_digits,
          last_four_digits: tok.last_four_digits,
          status: 'active',
          date_due: tok.date_due,
          date_created: new Date().toISOString(),
          live_mode: false,
        },
      };
    }

    if (method === 'POST' && url.pathname === '/v1/payments') {
      // [REF-PAY] the header is required on payment creation.
      if (!key) return bad('X-Idempotency-Key header is required', 'idempotency_key_required');
      const known = byIdempotencyKey.get(key);
      if (known) return known;
      if (typeof body?.card_id !== 'undefined' && typeof body?.token === 'undefined') {
        // SDK PaymentCreateRequest has no card_id: a saved card is paid with a new token [SAVED].
        return bad('Invalid card_token_id', 3003);
      }
      const amount = body?.transaction_amount;
      if (typeof amount !== 'number' || !(amount > 0)) return bad('transaction_amount attribute can not be null', 4020);
      if (body?.payment_method_id === 'pix') {
        if (!body?.payer?.email) return bad('payer.email must be a valid email', 4050);
        if (body.date_of_expiration != null) {
          // [PIX] "date_of_expiration": at least 30 minutes and at most 30 days ahead.
          const at = new Date(body.date_of_expiration).getTime();
          if (!Number.isFinite(at)) return bad('date_of_expiration invalid format', 4051);
          const ahead = at - Date.now();
          if (ahead < 30 * MINUTE || ahead > 30 * DAY)
            return bad('date_of_expiration must be between 30 minutes and 30 days from now', 4052);
        }
        const created = createPix(body, amount).then((p) => ({ status: 201, body: p }));
        byIdempotencyKey.set(key, created);
        return created;
      }
      // A card payment: [REF-PAY] token + payment_method_id + installments.
      if (typeof body?.token !== 'string') return bad('Invalid card_token_id', 3003);
      if (card003(body.token, key))
        return { status: 500, body: { message: 'internal error', error: 'internal_error', status: 500, cause: [] } };
      const tok = takeToken(body.token);
      if (!tok) return bad('Invalid card_token_id', 3003);
      if (tok.card_id) {
        // [SAVED] a saved card's token: the payer is the card's customer (payer.type 'customer').
        if (body?.payer?.type !== 'customer' || String(body?.payer?.id ?? '') !== tok.customer_id)
          return bad('Invalid users involved', 2034);
        // [AUTO] without its security code only an application enabled for automatic payments may
        // charge it (the answer a public thread quotes: 3031 security_code_id can't be null).
        if (!tok.has_security_code && !fake.automaticPayments) return bad("security_code_id can't be null", 3031);
      }
      if (!body?.installments || !body?.payment_method_id) return bad('installments attribute can not be null', 4015);
      const created = createCard(body, amount, tok).then((p) => ({ status: 201, body: p }));
      byIdempotencyKey.set(key, created);
      return created;
    }

    const rm = /^\/v1\/payments\/(\d+)\/refunds$/.exec(url.pathname);
    if (method === 'POST' && rm) {
      const p = payments.get(Number(rm[1]));
      if (!p) return bad('Payment not found', 2000, 404);
      // [REF-REF] refunds take an idempotency key too (SDK paymentRefund create's requestOptions).
      if (!key) return bad('X-Idempotency-Key header is required', 'idempotency_key_required');
      const known = refundsByKey.get(key);
      if (known) return known;
      // Only an approved payment is refundable (in_mediation is settled by the dispute).
      if (p.status !== 'approved') return bad('Payment not refundable', 2085);
      const left = Math.round((p.transaction_amount - p.transaction_amount_refunded) * 100) / 100;
      const amount = body?.amount == null ? left : Number(body.amount);
      if (!(amount > 0) || amount > left) return bad('Invalid refund amount', 2086);
      const answer = { status: 201, body: applyRefund(p, amount) };
      refundsByKey.set(key, answer);
      return answer;
    }
    if (method === 'GET' && rm) {
      const p = payments.get(Number(rm[1]));
      return p ? { status: 200, body: p.refunds } : bad('Payment not found', 2000, 404);
    }

    const m = /^\/v1\/payments\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && m) {
      const p = /^\d+$/.test(m[1]) ? payments.get(Number(m[1])) : undefined;
      return p ? { status: 200, body: p } : bad('Payment not found', 2000, 404);
    }
    if (method === 'PUT' && m) {
      // [REF-PAY] "Atualizar pagamento": {status: 'cancelled'} for a payment not yet paid (pending, in_process, authorized).
      const p = /^\d+$/.test(m[1]) ? payments.get(Number(m[1])) : undefined;
      if (!p) return bad('Payment not found', 2000, 404);
      if (body?.status !== 'cancelled') return bad('invalid status', 2063);
      if (!['pending', 'in_process', 'authorized'].includes(p.status)) return bad('Invalid operation: payment cannot be cancelled', 2063);
      fake.setStatus(p.id, 'cancelled', 'by_collector');
      return { status: 200, body: p };
    }
    const cb = /^\/v1\/chargebacks\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && cb) {
      const c = chargebacks.get(cb[1]);
      return c ? { status: 200, body: c } : bad('Chargeback not found', 'not_found', 404);
    }
    const mo = /^\/merchant_orders\/(\d+)$/.exec(url.pathname);
    if (method === 'GET' && mo) {
      // [IPN] a merchant order groups the payments of a checkout; here one order per payment, same id.
      const p = payments.get(Number(mo[1]));
      return p
        ? {
            status: 200,
            body: { id: p.id, status: 'closed', payments: [{ id: p.id, status: p.status, transaction_amount: p.transaction_amount }] },
          }
        : bad('Merchant order not found', 'not_found', 404);
    }
    return bad('resource not found', 'not_found', 404);
  }

  /** Test knob: a card ending 0003 answers 500 twice per idempotency key before it is processed. */
  function card003(tokenId: string, key: string): boolean {
    const tok = cardTokens.get(tokenId);
    if (!tok || tok.last_four_digits !== '0003') return false;
    const tries = (transientTries.get(key) ?? 0) + 1;
    transientTries.set(key, tries);
    return tries <= 2;
  }

  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const log: FakeMpRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      status: 0,
      answer: null,
    };
    requests.push(log);
    let out: { status: number; body: unknown };
    const fi = failures.findIndex((f) => !f.method || f.method === req.method);
    if (fi >= 0) {
      const [f] = failures.splice(fi, 1);
      out = {
        status: f.status,
        body: { message: 'fake failure', error: f.status === 403 ? 'forbidden' : 'internal_error', status: f.status, cause: [] },
      };
    } else {
      out = await handle(req.method ?? 'GET', url, req.headers, body);
    }
    log.status = out.status;
    log.answer = out.body;
    res.writeHead(out.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(out.body));
  });

  function basePayment(body: any, amount: number): FakeMpPayment {
    const now = new Date().toISOString();
    return {
      id: nextId++,
      status: 'pending',
      status_detail: MP_STATUS_DETAIL.pending,
      transaction_amount: amount,
      transaction_amount_refunded: 0,
      refunds: [],
      description: String(body.description ?? ''),
      payment_method_id: String(body.payment_method_id),
      payment_type_id: body.payment_method_id === 'pix' ? 'bank_transfer' : 'credit_card',
      external_reference: body.external_reference ?? null,
      notification_url: body.notification_url ?? null,
      date_created: now,
      // [PIX] without date_of_expiration a PIX lives 24 hours.
      date_of_expiration: body.payment_method_id === 'pix' ? (body.date_of_expiration ?? new Date(Date.now() + DAY).toISOString()) : null,
      date_approved: null,
      date_last_updated: now,
      binary_mode: body.binary_mode === true,
      payer: body.payer ?? null,
    };
  }

  async function createPix(body: any, amount: number): Promise<FakeMpPayment> {
    const p = basePayment(body, amount);
    const txid = newTxid();
    const qr = buildBrCode({
      key: 'fake-mp@example.com',
      merchantName: 'MERCADO PAGO FAKE',
      merchantCity: 'OSASCO',
      amountCents: Math.round(amount * 100),
      txid,
      singleUse: true,
    });
    p.point_of_interaction = {
      type: 'PIX',
      transaction_data: {
        qr_code: qr,
        // A real 240×240 PNG is slow-ish; the bench can ask for a placeholder.
        qr_code_base64: opts.realQr === false ? Buffer.from(`png:${p.id}`).toString('base64') : await qrPngBase64(qr),
        transaction_id: `E${p.id}${txid}`.slice(0, 32),
        ticket_url: `https://fake.mercadopago.test/payments/${p.id}/ticket`,
      },
    };
    payments.set(p.id, p);
    return p;
  }

  async function createCard(body: any, amount: number, tok: FakeMpCardToken): Promise<FakeMpPayment> {
    const p = basePayment(body, amount);
    p.payment_method_id = tok.brand;
    p.card = { id: tok.card_id, last_four_digits: tok.last_four_digits, first_six_digits: tok.first_six_digits };
    payments.set(p.id, p);
    // binary_mode: approved or rejected at once, never in_process ([REF-PAY] binary_mode).
    if (tok.last_four_digits === '0002') fake.setStatus(p.id, 'rejected', 'cc_rejected_other_reason');
    else fake.setStatus(p.id, 'approved');
    return p;
  }

  function applyRefund(p: FakeMpPayment, amount: number): FakeMpRefund {
    const refund: FakeMpRefund = {
      id: nextRefundId++,
      payment_id: p.id,
      amount,
      status: 'approved',
      date_created: new Date().toISOString(),
    };
    p.refunds.push(refund);
    p.transaction_amount_refunded = Math.round((p.transaction_amount_refunded + amount) * 100) / 100;
    // [REF-REF] a partial refund keeps the payment approved (status_detail partially_refunded); the last one refunds it.
    if (p.transaction_amount_refunded >= p.transaction_amount) fake.setStatus(p.id, 'refunded', 'refunded');
    else {
      p.status_detail = 'partially_refunded';
      changed(p);
    }
    return refund;
  }

  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const send = async (u: string, init: RequestInit): Promise<Delivery> => {
    const res = await fetch(u, init);
    return { url: u, init, status: res.status, body: jsonOrText(await res.text()) };
  };

  const fake: FakeMercadoPago = {
    url,
    token,
    payments,
    customers,
    cards,
    cardTokens,
    chargebacks,
    automaticPayments: opts.automaticPayments ?? true,
    cardToken(cardNumber, o = {}) {
      const digits = cardNumber.replace(/\D/g, '');
      const brand = digits.startsWith('4') ? 'visa' : digits.startsWith('3') ? 'amex' : 'master';
      return newToken({
        card_id: null,
        customer_id: null,
        last_four_digits: digits.slice(-4),
        first_six_digits: digits.slice(0, 6),
        brand,
        has_security_code: o.securityCode ?? true,
      }).id;
    },
    requests,
    setStatus(id, status, detail) {
      const p = payments.get(Number(id));
      if (!p) throw new Error(`fake mercadopago: no payment ${id}`);
      p.status = status;
      p.status_detail = detail ?? MP_STATUS_DETAIL[status];
      changed(p);
      if (status === 'approved' && !p.date_approved) p.date_approved = p.date_last_updated;
      // [E2E] a paid PIX carries the payer's transfer: its end-to-end id (payer bank ISPB 00360305).
      const td = p.point_of_interaction?.transaction_data;
      if (status === 'approved' && td && !td.e2e_id) {
        const at = (p.date_approved ?? p.date_last_updated).replace(/\D/g, '').slice(0, 12);
        td.e2e_id = `PIXE00360305${at}${String(p.id).padStart(11, '0').slice(-11)}`;
        td.bank_transfer_id = p.id;
        td.financial_institution = 1;
      }
      if (status === 'refunded' && p.transaction_amount_refunded < p.transaction_amount) {
        p.refunds.push({
          id: nextRefundId++,
          payment_id: p.id,
          amount: p.transaction_amount - p.transaction_amount_refunded,
          status: 'approved',
          date_created: p.date_last_updated,
        });
        p.transaction_amount_refunded = p.transaction_amount;
      }
      return p;
    },
    refundInPanel(id, amount) {
      const p = payments.get(Number(id));
      if (!p) throw new Error(`fake mercadopago: no payment ${id}`);
      if (p.status !== 'approved') throw new Error(`fake mercadopago: payment ${id} is ${p.status}, not refundable`);
      applyRefund(p, amount ?? p.transaction_amount - p.transaction_amount_refunded);
      return p;
    },
    chargeback(id) {
      const p = payments.get(Number(id));
      if (!p) throw new Error(`fake mercadopago: no payment ${id}`);
      // [CHARGEBACK] the chargeback is its own resource pointing at the payment(s); the payment shows charged_back.
      const c: FakeMpChargeback = {
        id: `${p.id}00${chargebacks.size + 1}`,
        payments: [p.id],
        amount: p.transaction_amount,
        coverage_applied: false,
        date_created: new Date().toISOString(),
      };
      chargebacks.set(c.id, c);
      fake.setStatus(p.id, 'charged_back');
      return c;
    },
    failNext(n, status = 500, method) {
      for (let i = 0; i < n; i++) failures.push({ status, method });
    },
    notification(appUrl, id, o) {
      const dataId = String(id);
      const type = o.type ?? 'payment';
      const path = o.path ?? '/api/webhooks/mercadopago';
      const sep = path.includes('?') ? '&' : '?';
      if (o.format === 'ipn') {
        // [IPN] POST <url>?topic=<topic>&id=<id>, no signature, no body the app needs.
        return {
          url: `${appUrl}${path}${sep}topic=${encodeURIComponent(type)}&id=${encodeURIComponent(dataId)}`,
          init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
        };
      }
      // [WEBHOOKS] data.id and type in the query; x-signature "ts=…,v1=…" over
      // "id:<data.id>;request-id:<x-request-id>;ts:<ts>;" with the application's secret.
      const requestId = o.requestId ?? randomUUID();
      const ts = o.ts ?? Math.floor(Date.now() / 1000);
      let signature = signWebhook(o.secret, o.signedId ?? dataId, requestId, ts);
      if (o.tamper) {
        const i = signature.length - 1;
        signature = signature.slice(0, i) + (signature[i] === '0' ? '1' : '0');
      }
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': requestId };
      if (!o.unsigned) headers['x-signature'] = signature;
      return {
        url: `${appUrl}${path}${sep}data.id=${encodeURIComponent(dataId)}&type=${encodeURIComponent(type)}`,
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
            action: type === 'payment' ? 'payment.updated' : `${type}.updated`,
            data: { id: dataId },
          }),
        },
      };
    },
    async notify(appUrl, id, o) {
      const { url: u, init } = fake.notification(appUrl, id, o);
      const d = await send(u, init);
      return { status: d.status, body: d.body };
    },
    async deliver(appUrl, id, secret) {
      const p = payments.get(Number(id));
      if (!p) throw new Error(`fake mercadopago: no payment ${id}`);
      if (!p.notification_url) return [];
      const target = new URL(p.notification_url);
      const sourceNews = target.searchParams.get('source_news');
      const path = target.pathname + target.search;
      const out: Delivery[] = [];
      if (sourceNews !== 'ipn') {
        const { url: u, init } = fake.notification(appUrl, id, { secret, path });
        out.push(await send(u, init));
      }
      if (sourceNews !== 'webhooks') {
        for (const topic of ['payment', 'merchant_order']) {
          const { url: u, init } = fake.notification(appUrl, id, { secret, path, format: 'ipn', type: topic });
          out.push(await send(u, init));
        }
      }
      return out;
    },
    redeliver(d) {
      return send(d.url, d.init);
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
