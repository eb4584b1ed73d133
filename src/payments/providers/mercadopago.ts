import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CardCharge, ChargeCardInput, CreatePixInput, CreatedPix, PaymentProvider, ProviderPayment, ProviderStatus, SaveCardInput, SavedCard } from './types';
import { ProviderError } from './types';

/** Mercado Pago payment status → ours. */
export function mapMercadoPagoStatus(status: string, dateOfExpiration?: string | null): ProviderStatus {
  switch (status) {
    case 'approved':
      return 'approved';
    case 'pending':
    case 'in_process':
    case 'authorized':
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

/** Mercado Pago PIX through its REST API (`/v1/payments`). */
export function createMercadoPagoProvider(cfg: { apiUrl: string; accessToken: string; notificationUrl: string; timeoutMs?: number }): PaymentProvider {
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    let res: Response;
    try {
      res = await fetch(cfg.apiUrl + path, {
        method,
        headers: { authorization: `Bearer ${cfg.accessToken}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(cfg.timeoutMs ?? 10_000),
      });
    } catch (e) {
      throw new ProviderError(`mercadopago unreachable: ${(e as Error).message}`, true);
    }
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }

  const toPayment = (p: any): ProviderPayment => ({
    providerPaymentId: String(p.id),
    externalReference: p.external_reference ?? null,
    status: mapMercadoPagoStatus(p.status, p.date_of_expiration),
    amountCents: Math.round(Number(p.transaction_amount ?? 0) * 100),
    paidAt: p.date_approved ? new Date(p.date_approved) : null,
  });

  const provider: PaymentProvider = {
    name: 'mercadopago',
    async createPix(i: CreatePixInput): Promise<CreatedPix> {
      const [first, ...rest] = i.payer.name.trim().split(/\s+/);
      const { status, json } = await call(
        'POST',
        '/v1/payments',
        {
          transaction_amount: i.amountCents / 100,
          description: i.description.slice(0, 250),
          payment_method_id: 'pix',
          external_reference: String(i.paymentId),
          notification_url: cfg.notificationUrl,
          date_of_expiration: i.expiresAt.toISOString().replace('Z', '+00:00'),
          payer: {
            email: i.payer.email,
            first_name: first,
            last_name: rest.join(' ') || undefined,
            identification: i.payer.cpf ? { type: 'CPF', number: i.payer.cpf } : undefined,
          },
        },
        // Same key for the same payment of ours: a retried create never charges twice.
        { 'X-Idempotency-Key': `cotaverde-payment-${i.paymentId}` },
      );
      if (status >= 500 || status === 429) throw new ProviderError(`mercadopago create failed (${status})`, true);
      if (status >= 400 || !json?.id) throw new ProviderError(`mercadopago refused the payment (${status}): ${json?.message ?? ''}`, false);
      const td = json.point_of_interaction?.transaction_data ?? {};
      if (!td.qr_code || !td.qr_code_base64) throw new ProviderError('mercadopago answered without PIX data', false);
      return {
        providerPaymentId: String(json.id),
        txid: td.transaction_id ?? null,
        copyPasteCode: td.qr_code,
        qrCodeBase64: td.qr_code_base64,
        status: mapMercadoPagoStatus(json.status, json.date_of_expiration),
      };
    },
    async fetch(providerPaymentId: string) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(providerPaymentId)) return null;
      const { status, json } = await call('GET', `/v1/payments/${encodeURIComponent(providerPaymentId)}`);
      if (status === 404) return null;
      if (status >= 400 || !json) throw new ProviderError(`mercadopago fetch failed (${status})`, status >= 500 || status === 429);
      return toPayment(json);
    },
    /**
     * Autopay: the user's Mercado Pago customer (found by e-mail, else created), then the card
     * token saved on it (`POST /v1/customers/{id}/cards {token}`).
     */
    async saveCard(i: SaveCardInput): Promise<SavedCard> {
      let customerId = i.customerId ?? null;
      if (!customerId) {
        const found = await call('GET', `/v1/customers/search?email=${encodeURIComponent(i.email)}`);
        if (found.status >= 500 || found.status === 429) throw new ProviderError(`mercadopago customer search failed (${found.status})`, true);
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
        if (created.status >= 500 || created.status === 429) throw new ProviderError(`mercadopago customer create failed (${created.status})`, true);
        if (created.status >= 400 || !created.json?.id) throw new ProviderError(`mercadopago refused the customer (${created.status})`, false);
        customerId = String(created.json.id);
      }
      const card = await call('POST', `/v1/customers/${encodeURIComponent(customerId)}/cards`, { token: i.token });
      if (card.status >= 500 || card.status === 429) throw new ProviderError(`mercadopago card save failed (${card.status})`, true);
      if (card.status >= 400 || !card.json?.id) throw new ProviderError(`mercadopago refused the card (${card.status})`, false, 'card_token_invalid');
      return {
        customerId,
        cardId: String(card.json.id),
        brand: String(card.json.payment_method?.id ?? card.json.issuer?.name ?? 'card'),
        last4: String(card.json.last_four_digits ?? '').slice(-4),
      };
    },

    /**
     * Autopay: `POST /v1/payments` with the customer and the saved card, binary mode (approved or
     * rejected at once), `X-Idempotency-Key` = our run: a retried charge never charges twice.
     */
    async chargeCard(i: ChargeCardInput): Promise<CardCharge> {
      const { status, json } = await call(
        'POST',
        '/v1/payments',
        {
          transaction_amount: i.amountCents / 100,
          description: i.description.slice(0, 250),
          installments: 1,
          binary_mode: true,
          payment_method_id: i.brand ?? undefined,
          external_reference: String(i.paymentId),
          notification_url: cfg.notificationUrl,
          card_id: i.cardId,
          payer: { type: 'customer', id: i.customerId, email: i.payer.email },
        },
        { 'X-Idempotency-Key': i.idempotencyKey },
      );
      if (status >= 500 || status === 429) throw new ProviderError(`mercadopago charge failed (${status})`, true, 'temporarily_unavailable');
      if (status >= 400 || !json?.id) {
        // A refused request (bad card, bad customer): a decline of this charge, not a retry.
        return {
          providerPaymentId: '',
          externalReference: String(i.paymentId),
          status: 'rejected',
          amountCents: i.amountCents,
          paidAt: null,
          statusDetail: `http_${status}`,
          answer: { http_status: status, message: json?.message ?? null, error: json?.error ?? null },
        };
      }
      return {
        ...toPayment(json),
        statusDetail: json.status_detail ?? null,
        answer: { id: json.id, status: json.status, status_detail: json.status_detail ?? null, date_approved: json.date_approved ?? null },
      };
    },

    async cancel(providerPaymentId: string) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(providerPaymentId)) return false;
      // Mercado Pago cancels a pending payment by updating its status; a paid or ended one is refused (4xx).
      const { status, json } = await call('PUT', `/v1/payments/${encodeURIComponent(providerPaymentId)}`, { status: 'cancelled' });
      if (status >= 500 || status === 429) throw new ProviderError(`mercadopago cancel failed (${status})`, true);
      return status < 300 && json?.status === 'cancelled';
    },

    async refund(providerPaymentId: string, o: { idempotencyKey: string }) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(providerPaymentId)) throw new ProviderError('invalid provider payment id', false, 'refund_refused');
      // A full refund: POST /v1/payments/{id}/refunds with no amount; the key makes a retry the same refund.
      const { status, json } = await call('POST', `/v1/payments/${encodeURIComponent(providerPaymentId)}/refunds`, {}, { 'X-Idempotency-Key': o.idempotencyKey });
      if (status >= 500 || status === 429) throw new ProviderError(`mercadopago refund failed (${status})`, true);
      if (status >= 300) throw new ProviderError(`mercadopago refused the refund (${status}): ${json?.message ?? ''}`, false, 'refund_refused');
      return provider.fetch(providerPaymentId);
    },
  };
  return provider;
}
