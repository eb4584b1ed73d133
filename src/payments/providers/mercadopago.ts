import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  CardCharge,
  ChargeCardInput,
  CreatePixInput,
  CreatedPix,
  NotificationHint,
  PaymentProvider,
  ProviderPayment,
  ProviderStatus,
  SaveCardInput,
  SavedCard,
} from './types';
import { ProviderError } from './types';
import { pixEndToEndId } from './e2e';

/**
 * Mercado Pago's payment status → ours ("Status de pagamento"). `authorized` and `in_mediation`
 * keep their names: the money is held at Mercado Pago (RULES P9).
 */
export function mapMercadoPagoStatus(status: string | undefined, dateOfExpiration?: string | null): ProviderStatus {
  switch (status) {
    case 'approved':
      return 'approved';
    case 'authorized':
      return 'authorized';
    case 'in_mediation':
      return 'in_mediation';
    case 'pending':
    case 'in_process':
      return 'pending';
    case 'rejected':
      return 'rejected';
    case 'cancelled':
      return dateOfExpiration && new Date(dateOfExpiration).getTime() <= Date.now() ? 'expired' : 'cancelled';
    case 'refunded':
      return 'refunded';
    case 'charged_back':
      return 'charged_back';
    default:
      return 'pending';
  }
}

/** Mercado Pago's documented PIX minimum (30 minutes) plus a minute for the clocks and the request. */
export const MERCADOPAGO_MIN_PIX_EXPIRY_MINUTES = 31;

export interface WebhookSignatureInput {
  xSignature: string | undefined;
  xRequestId: string | undefined;
  dataId: string | undefined;
  secret: string;
  /** Oldest accepted signature timestamp (ms); older ones are replays. */
  maxAgeMs?: number;
  now?: number;
}

/**
 * Verifies `x-signature: ts=<ts>,v1=<hex>`: HMAC-SHA256 (secret) over
 * `id:<data.id>;request-id:<x-request-id>;ts:<ts>;` (Mercado Pago's manifest;
 * alphanumeric data.id is lower-cased as their docs say).
 */
export function verifyWebhookSignature(i: WebhookSignatureInput): { ok: true; ts: number } | { ok: false; reason: string } {
  if (!i.xSignature || !i.dataId) return { ok: false, reason: 'missing_signature' };
  const parts = Object.fromEntries(
    i.xSignature.split(',').map((p) => {
      const [k, ...v] = p.trim().split('=');
      return [k, v.join('=')];
    }),
  );
  const ts = parts.ts;
  const v1 = parts.v1;
  if (!ts || !v1 || !/^\d+$/.test(ts) || !/^[0-9a-f]{64}$/i.test(v1)) return { ok: false, reason: 'malformed_signature' };
  const id = /^[a-z0-9]+$/i.test(i.dataId) ? i.dataId.toLowerCase() : i.dataId;
  let manifest = `id:${id};`;
  if (i.xRequestId) manifest += `request-id:${i.xRequestId};`;
  manifest += `ts:${ts};`;
  const expected = createHmac('sha256', i.secret).update(manifest).digest();
  const given = Buffer.from(v1, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
  // ts is in milliseconds in Mercado Pago's notifications; accept seconds too.
  const tsMs = ts.length <= 10 ? Number(ts) * 1000 : Number(ts);
  const now = i.now ?? Date.now();
  if (i.maxAgeMs != null && Math.abs(now - tsMs) > i.maxAgeMs) return { ok: false, reason: 'stale_signature' };
  return { ok: true, ts: tsMs };
}

/** Signs like Mercado Pago does (used by the local fake and tests). */
export function signWebhook(secret: string, dataId: string, requestId: string, ts: number): string {
  const id = /^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId;
  const v1 = createHmac('sha256', secret).update(`id:${id};request-id:${requestId};ts:${ts};`).digest('hex');
  return `ts=${ts},v1=${v1}`;
}

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export interface MercadoPagoConfig {
  apiUrl: string;
  accessToken: string;
  /** Where Mercado Pago notifies; `source_news=webhooks` is added (signed webhooks only, no IPN). */
  notificationUrl: string;
  webhookSecret?: string;
  publicKey?: string | null;
  /** Prefix of every X-Idempotency-Key (the installation id: RULES P8). */
  idempotencyPrefix: () => Promise<string>;
  timeoutMs?: number;
}

/**
 * The fields of Mercado Pago's JSON answers this adapter reads (payments, customers, cards, card
 * tokens, chargebacks, error bodies), each optional: an answer is checked before a field is used.
 */
interface MpAnswer {
  id?: string | number;
  status?: string;
  status_detail?: string | null;
  external_reference?: string | null;
  date_of_expiration?: string | null;
  date_approved?: string | null;
  transaction_amount?: number | string;
  transaction_amount_refunded?: number | string;
  /** PIX data; `e2e_id` = the PIX end-to-end id once paid (sources in docs/DECISIONS.md, "Winner and /conta"). */
  point_of_interaction?: {
    transaction_data?: { qr_code?: string; qr_code_base64?: string; transaction_id?: string | null; e2e_id?: string | null };
  };
  payment_method?: { id?: string };
  issuer?: { name?: string };
  last_four_digits?: string;
  results?: Array<{ id?: string | number }>;
  payments?: unknown[];
  message?: string;
  cause?: Array<{ code?: string | number; description?: string }>;
}

/** Mercado Pago through its REST API: PIX, refunds, and autopay through "Pagamentos automáticos". */
export function createMercadoPagoProvider(cfg: MercadoPagoConfig): PaymentProvider {
  const notificationUrl = (() => {
    const u = new URL(cfg.notificationUrl);
    u.searchParams.set('source_news', 'webhooks');
    return u.toString();
  })();

  async function call(method: string, path: string, body?: unknown, idempotencyKey?: string) {
    const headers: Record<string, string> = { authorization: `Bearer ${cfg.accessToken}`, 'content-type': 'application/json' };
    // One key per operation of ours, prefixed with this installation's id (RULES P8).
    if (idempotencyKey) headers['X-Idempotency-Key'] = `${await cfg.idempotencyPrefix()}-${idempotencyKey}`;
    let res: Response;
    try {
      res = await fetch(cfg.apiUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(cfg.timeoutMs ?? 10_000),
      });
    } catch (e) {
      throw new ProviderError(`mercadopago unreachable: ${(e as Error).message}`, true);
    }
    const text = await res.text();
    let json: MpAnswer | null = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }

  const transient = (status: number) => status >= 500 || status === 429;
  const describe = (json: MpAnswer | null) =>
    [json?.message, ...(Array.isArray(json?.cause) ? json.cause.map((c) => `${c?.code ?? ''} ${c?.description ?? ''}`.trim()) : [])]
      .filter(Boolean)
      .join('; ');

  const toPayment = (p: MpAnswer): ProviderPayment => ({
    providerPaymentId: String(p.id),
    externalReference: p.external_reference ?? null,
    status: mapMercadoPagoStatus(p.status, p.date_of_expiration),
    amountCents: Math.round(Number(p.transaction_amount ?? 0) * 100),
    paidAt: p.date_approved ? new Date(p.date_approved) : null,
    refundedCents: Math.round(Number(p.transaction_amount_refunded ?? 0) * 100),
    endToEndId: pixEndToEndId(p.point_of_interaction?.transaction_data?.e2e_id),
  });

  const provider: PaymentProvider = {
    name: 'mercadopago',
    minPixExpiryMinutes: MERCADOPAGO_MIN_PIX_EXPIRY_MINUTES,
    // MercadoPago.js (https://sdk.mercadopago.com/js/v2) talks to api.mercadopago.com and frames *.mercadopago.com.
    browserOrigins: {
      script: ['https://sdk.mercadopago.com'],
      connect: ['https://api.mercadopago.com'],
      frame: ['https://*.mercadopago.com'],
    },
    cardConfig: () => ({ provider: 'mercadopago', public_key: cfg.publicKey ?? null }),

    async readNotification(req): Promise<NotificationHint> {
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as {
        data?: { id?: unknown };
        type?: unknown;
        topic?: unknown;
        resource?: unknown;
      };
      const q = (k: string) => (typeof req.query[k] === 'string' ? (req.query[k] as string) : undefined);
      // Webhooks: ?data.id=…&type=… (and the JSON body); IPN: ?topic=…&id=… (resource in the body).
      const topic = String(q('type') ?? q('topic') ?? body.type ?? body.topic ?? 'payment');
      const resourceId = typeof body.resource === 'string' ? body.resource.split('/').pop() : undefined;
      const dataId = String(q('data.id') ?? q('id') ?? body.data?.id ?? resourceId ?? '');
      let signed = false;
      let signatureProblem: string | undefined;
      if (cfg.webhookSecret) {
        const v = verifyWebhookSignature({
          xSignature: req.headers['x-signature'],
          xRequestId: req.headers['x-request-id'],
          dataId,
          secret: cfg.webhookSecret,
          maxAgeMs: 10 * 60_000,
        });
        signed = v.ok;
        if (!v.ok) signatureProblem = v.reason;
      } else signatureProblem = 'no_secret';
      if (!ID_RE.test(dataId)) return { signed, signatureProblem, topic, providerPaymentIds: [] };
      if (topic === 'payment') return { signed, signatureProblem, topic, providerPaymentIds: [dataId] };
      if (topic === 'chargebacks') {
        // A chargeback names its payments (GET /v1/chargebacks/{id}); each is re-fetched.
        const { status, json } = await call('GET', `/v1/chargebacks/${encodeURIComponent(dataId)}`);
        if (transient(status)) throw new ProviderError(`mercadopago chargeback fetch failed (${status})`, true);
        const ids =
          status < 300 && Array.isArray(json?.payments)
            ? json.payments.map((p: unknown) => String(typeof p === 'object' && p ? (p as { id: unknown }).id : p))
            : [];
        return { signed, signatureProblem, topic, providerPaymentIds: ids.filter((id: string) => ID_RE.test(id)) };
      }
      // merchant_order and any other topic: our payments arrive by their own payment topic.
      return { signed, signatureProblem, topic, providerPaymentIds: [] };
    },

    async createPix(i: CreatePixInput): Promise<CreatedPix> {
      const [first, ...rest] = i.payer.name.trim().split(/\s+/);
      // The deadline is computed here, when the request leaves: Mercado Pago refuses less than 30 minutes.
      const expiresAt = new Date(Date.now() + Math.max(i.expiresInMinutes, MERCADOPAGO_MIN_PIX_EXPIRY_MINUTES) * 60_000);
      const { status, json } = await call(
        'POST',
        '/v1/payments',
        {
          transaction_amount: i.amountCents / 100,
          description: i.description.slice(0, 250),
          payment_method_id: 'pix',
          external_reference: String(i.paymentId),
          notification_url: notificationUrl,
          date_of_expiration: expiresAt.toISOString().replace('Z', '+00:00'),
          payer: {
            email: i.payer.email,
            first_name: first,
            last_name: rest.join(' ') || undefined,
            identification: i.payer.cpf ? { type: 'CPF', number: i.payer.cpf } : undefined,
          },
        },
        // Same key for the same payment of ours: a retried create never charges twice.
        `cotaverde-payment-${i.paymentId}`,
      );
      if (transient(status)) throw new ProviderError(`mercadopago create failed (${status})`, true);
      if (status >= 400 || !json?.id)
        throw new ProviderError(`mercadopago refused the payment (${status}): ${describe(json)}`, false, 'provider_refused', status);
      const td = json.point_of_interaction?.transaction_data ?? {};
      if (!td.qr_code || !td.qr_code_base64) throw new ProviderError('mercadopago answered without PIX data', false);
      return {
        providerPaymentId: String(json.id),
        txid: td.transaction_id ?? null,
        copyPasteCode: td.qr_code,
        qrCodeBase64: td.qr_code_base64,
        status: mapMercadoPagoStatus(json.status, json.date_of_expiration),
        // A replayed key answers the first payment: its own deadline is the one that counts.
        expiresAt: json.date_of_expiration ? new Date(json.date_of_expiration) : expiresAt,
      };
    },

    async fetch(providerPaymentId: string) {
      if (!ID_RE.test(providerPaymentId)) return null;
      const { status, json } = await call('GET', `/v1/payments/${encodeURIComponent(providerPaymentId)}`);
      if (status === 404) return null;
      if (status >= 400 || !json) throw new ProviderError(`mercadopago fetch failed (${status})`, transient(status), undefined, status);
      return toPayment(json);
    },

    /**
     * Autopay: the user's Mercado Pago customer (found by e-mail, else created), then the card
     * registered on it from the browser's token, which carries the security code: Mercado Pago
     * checks the card with its CVV here, once ("Pagamentos automáticos": tokenize the card that
     * later charges without CVV).
     */
    async saveCard(i: SaveCardInput): Promise<SavedCard> {
      let customerId = i.customerId ?? null;
      if (!customerId) {
        const found = await call('GET', `/v1/customers/search?email=${encodeURIComponent(i.email)}`);
        if (transient(found.status)) throw new ProviderError(`mercadopago customer search failed (${found.status})`, true);
        customerId = found.status < 300 && found.json?.results?.[0]?.id ? String(found.json.results[0].id) : null;
      }
      if (!customerId) {
        const [first, ...rest] = i.name.trim().split(/\s+/);
        const created = await call('POST', '/v1/customers', {
          email: i.email,
          first_name: first,
          last_name: rest.join(' ') || undefined,
          identification: { type: i.docNumber.length > 11 ? 'CNPJ' : 'CPF', number: i.docNumber },
        });
        if (transient(created.status)) throw new ProviderError(`mercadopago customer create failed (${created.status})`, true);
        if (created.status >= 400 || !created.json?.id)
          throw new ProviderError(`mercadopago refused the customer (${created.status})`, false, undefined, created.status);
        customerId = String(created.json.id);
      }
      const card = await call('POST', `/v1/customers/${encodeURIComponent(customerId)}/cards`, { token: i.token });
      if (transient(card.status)) throw new ProviderError(`mercadopago card save failed (${card.status})`, true);
      if (card.status >= 400 || !card.json?.id)
        throw new ProviderError(
          `mercadopago refused the card (${card.status}): ${describe(card.json)}`,
          false,
          'card_token_invalid',
          card.status,
        );
      return {
        customerId,
        cardId: String(card.json.id),
        brand: String(card.json.payment_method?.id ?? card.json.issuer?.name ?? 'card'),
        last4: String(card.json.last_four_digits ?? '').slice(-4),
      };
    },

    /**
     * Autopay through "Pagamentos automáticos": a fresh card token from the saved card
     * (`POST /v1/card_tokens {card_id, customer_id}`), then `POST /v1/payments {token, payer:
     * {type: 'customer', id}}` in binary mode with our run's idempotency key. A 201 answers the
     * card's decision (approved or rejected: the customer's); any other 4xx is a refusal of the
     * request itself (application not enabled for automatic payments, bad request): ours, thrown
     * as 'provider_refused', never recorded as the customer's decline.
     */
    async chargeCard(i: ChargeCardInput): Promise<CardCharge> {
      const refused = (step: string, status: number, json: MpAnswer | null) =>
        new ProviderError(
          `mercadopago refused the ${step} (${status}): ${describe(json)}`.slice(0, 500),
          false,
          'provider_refused',
          status,
        );
      const tok = await call('POST', '/v1/card_tokens', { card_id: i.cardId, customer_id: i.customerId });
      if (transient(tok.status))
        throw new ProviderError(`mercadopago card token failed (${tok.status})`, true, 'temporarily_unavailable', tok.status);
      if (tok.status >= 400 || !tok.json?.id) throw refused('card token', tok.status, tok.json);
      const { status, json } = await call(
        'POST',
        '/v1/payments',
        {
          transaction_amount: i.amountCents / 100,
          description: i.description.slice(0, 250),
          installments: 1,
          binary_mode: true,
          token: String(tok.json.id),
          payment_method_id: i.brand ?? undefined,
          external_reference: String(i.paymentId),
          notification_url: notificationUrl,
          payer: { type: 'customer', id: i.customerId, email: i.payer.email },
        },
        i.idempotencyKey,
      );
      if (transient(status)) throw new ProviderError(`mercadopago charge failed (${status})`, true, 'temporarily_unavailable', status);
      if (status >= 400 || !json?.id) throw refused('charge', status, json);
      return {
        ...toPayment(json),
        statusDetail: json.status_detail ?? null,
        answer: { id: json.id, status: json.status, status_detail: json.status_detail ?? null, date_approved: json.date_approved ?? null },
      };
    },

    async cancel(providerPaymentId: string) {
      if (!ID_RE.test(providerPaymentId)) return false;
      // Mercado Pago cancels a pending payment by updating its status; a paid or ended one is refused (4xx).
      const { status, json } = await call('PUT', `/v1/payments/${encodeURIComponent(providerPaymentId)}`, { status: 'cancelled' });
      if (transient(status)) throw new ProviderError(`mercadopago cancel failed (${status})`, true);
      return status < 300 && json?.status === 'cancelled';
    },

    async refund(providerPaymentId: string, o: { idempotencyKey: string }) {
      if (!ID_RE.test(providerPaymentId)) throw new ProviderError('invalid provider payment id', false, 'refund_refused');
      // A full refund: POST /v1/payments/{id}/refunds with no amount; the key makes a retry the same refund.
      const { status, json } = await call('POST', `/v1/payments/${encodeURIComponent(providerPaymentId)}/refunds`, {}, o.idempotencyKey);
      if (transient(status)) throw new ProviderError(`mercadopago refund failed (${status})`, true);
      if (status >= 300)
        throw new ProviderError(`mercadopago refused the refund (${status}): ${describe(json)}`, false, 'refund_refused', status);
      return provider.fetch(providerPaymentId);
    },
  };
  return provider;
}
