import { sandboxEndToEndId } from './e2e';
import QRCode from 'qrcode';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db';
import type { Installation } from '../../platform/installation';
import { buildBrCode, pixText } from '../brcode';
import type {
  CardCharge,
  ChargeCardInput,
  CreatePixInput,
  CreatedPix,
  PaymentProvider,
  ProviderPayment,
  ProviderStatus,
  SaveCardInput,
  SavedCard,
} from './types';
import { ProviderError } from './types';

/** What the sandbox tokenizer keeps of a card: never its number or security code. */
export interface SandboxTokenInput {
  userId: number;
  /** Used only to compute brand, last4 and the test outcome; not stored, not logged. */
  cardDigits: string;
  brand: string;
  expirationMonth: number;
  expirationYear: number;
  holderName: string;
  docNumber: string;
}

/** Test cards (autopay, RULES A4): …0002 is declined, …0003 fails transiently twice then approves, any other approves. */
export function sandboxCardOutcome(cardDigits: string): 'approve' | 'decline' | 'transient' {
  if (cardDigits.endsWith('0002')) return 'decline';
  if (cardDigits.endsWith('0003')) return 'transient';
  return 'approve';
}

/** Minutes a sandbox card token lives (Mercado Pago's card tokens are short-lived and single-use too). */
export const SANDBOX_TOKEN_TTL_MINUTES = 10;

export type SandboxProvider = PaymentProvider & {
  approve(providerPaymentId: string): Promise<boolean>;
  cancel(providerPaymentId: string): Promise<boolean>;
  refund(providerPaymentId: string, o: { idempotencyKey: string }): Promise<ProviderPayment | null>;
  setStatus(providerPaymentId: string, status: ProviderStatus): Promise<void>;
  tokenizeCard(i: SandboxTokenInput): Promise<{ id: string; brand: string; last4: string }>;
  saveCard(i: SaveCardInput): Promise<SavedCard>;
  chargeCard(i: ChargeCardInput): Promise<CardCharge>;
};

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * 25 alphanumerics: BACEN's BR Code manual limits field 62-05 (reference label / txid) to 25
 * characters of [A-Za-z0-9] in a static code; 32 symbols ^ 25 is unguessable.
 */
export const TXID_LENGTH = 25;
export function newTxid(): string {
  const bytes = randomBytes(TXID_LENGTH);
  let s = '';
  for (const b of bytes) s += ALNUM[b % ALNUM.length];
  return s;
}

/** 240×240 PNG, base64 (no data: prefix), as the client expects. */
export async function qrPngBase64(text: string): Promise<string> {
  // qrcode sizes the image as floor(modules × (width / modules)), which float
  // rounding turns into 239 for some symbol versions (e.g. version 9, a BR Code
  // with an EVP key and a long merchant name): a hair over 240 always floors to 240.
  const buf = await QRCode.toBuffer(text, { type: 'png', width: 240 + 1e-6, margin: 1, errorCorrectionLevel: 'M' });
  return buf.toString('base64');
}

/**
 * The sandbox PSP: a real, valid BR Code and QR image, with the "bank side"
 * kept in sandbox_charges. Nothing approves by itself unless
 * SANDBOX_AUTO_APPROVE_SECONDS is set (demos); operators approve with
 * `cotaverde payments approve <id>` or the admin action.
 */
export function createSandboxProvider(deps: {
  db: Db;
  /** key: the configured PIX_KEY, else this installation's random EVP (nobody's key). */
  pix: { key?: string | null; merchantName: string; merchantCity: string };
  autoApproveSeconds: number;
  installation: () => Promise<Installation>;
}): SandboxProvider {
  const { db } = deps;
  const provider = {
    name: 'sandbox' as const,
    minPixExpiryMinutes: 1,
    browserOrigins: { script: [], connect: [], frame: [] },
    cardConfig: () => ({ provider: 'sandbox', public_key: null }),

    async createPix(i: CreatePixInput): Promise<CreatedPix> {
      const txid = newTxid();
      const expiresAt = new Date(Date.now() + i.expiresInMinutes * 60_000);
      const code = buildBrCode({
        key: deps.pix.key || (await deps.installation()).pixEvp,
        merchantName: pixText(deps.pix.merchantName, 25),
        merchantCity: pixText(deps.pix.merchantCity, 15),
        amountCents: i.amountCents,
        txid,
        singleUse: true,
      });
      const providerPaymentId = `sbx_${txid}`;
      await db('sandbox_charges').insert({
        provider_payment_id: providerPaymentId,
        external_reference: String(i.paymentId),
        amount_cents: i.amountCents,
        status: 'pending',
        expires_at: expiresAt,
      });
      return { providerPaymentId, txid, copyPasteCode: code, qrCodeBase64: await qrPngBase64(code), status: 'pending', expiresAt };
    },

    async fetch(providerPaymentId: string): Promise<ProviderPayment | null> {
      if (providerPaymentId.startsWith('sbxchg_')) {
        // A saved-card charge (autopay): decided when it was made.
        const k = await db('sandbox_card_calls')
          .where({ charge_id: providerPaymentId })
          .whereIn('result', ['approved', 'rejected'])
          .first();
        if (!k) return null;
        const status: ProviderStatus = k.refunded_at ? 'refunded' : k.result;
        return {
          providerPaymentId,
          externalReference: null,
          status,
          amountCents: k.amount_cents,
          paidAt: k.result === 'approved' ? k.created_at : null,
        };
      }
      const c = await db('sandbox_charges').where({ provider_payment_id: providerPaymentId }).first();
      if (!c) return null;
      let status: ProviderStatus = c.status;
      let paidAt: Date | null = c.approved_at;
      const now = Date.now();
      if (status === 'pending' && deps.autoApproveSeconds > 0 && new Date(c.created_at).getTime() + deps.autoApproveSeconds * 1000 <= now) {
        await provider.approve(providerPaymentId);
        status = 'approved';
        paidAt = new Date();
      } else if (status === 'pending' && new Date(c.expires_at).getTime() <= now) {
        status = 'expired';
      }
      // A paid PIX has the end-to-end id the payer's bank would print (RULES P13).
      const endToEndId = paidAt ? sandboxEndToEndId(new Date(paidAt), providerPaymentId) : null;
      return { providerPaymentId, externalReference: c.external_reference, status, amountCents: c.amount_cents, paidAt, endToEndId };
    },

    /** Marks the charge paid at the "bank"; true if it changed. */
    async approve(providerPaymentId: string): Promise<boolean> {
      const n = await db('sandbox_charges')
        .where({ provider_payment_id: providerPaymentId, status: 'pending' })
        .update({ status: 'approved', approved_at: db.fn.now() });
      return n > 0;
    },

    async cancel(providerPaymentId: string): Promise<boolean> {
      const n = await db('sandbox_charges')
        .where({ provider_payment_id: providerPaymentId, status: 'pending' })
        .update({ status: 'cancelled' });
      return n > 0;
    },

    /** The sandbox refunds at once: an approved charge (PIX or saved card) becomes refunded. */
    async refund(providerPaymentId: string) {
      if (providerPaymentId.startsWith('sbxchg_')) {
        const n = await db('sandbox_card_calls')
          .where({ charge_id: providerPaymentId, result: 'approved' })
          .whereNull('refunded_at')
          .update({ refunded_at: db.fn.now() });
        if (!n && !(await db('sandbox_card_calls').where({ charge_id: providerPaymentId }).whereNotNull('refunded_at').first('charge_id')))
          throw new ProviderError('sandbox: only an approved charge can be refunded', false, 'refund_refused');
      } else {
        const c = await db('sandbox_charges').where({ provider_payment_id: providerPaymentId }).first('status');
        if (!c || (c.status !== 'approved' && c.status !== 'refunded'))
          throw new ProviderError('sandbox: only an approved charge can be refunded', false, 'refund_refused');
        await db('sandbox_charges').where({ provider_payment_id: providerPaymentId, status: 'approved' }).update({ status: 'refunded' });
      }
      return provider.fetch(providerPaymentId);
    },

    async setStatus(providerPaymentId: string, status: ProviderStatus) {
      await db('sandbox_charges').where({ provider_payment_id: providerPaymentId }).update({ status });
    },

    /** The sandbox tokenizer: stores brand, last4, expiry, holder, document and the outcome class. */
    async tokenizeCard(i: SandboxTokenInput) {
      const id = `sbxtok_${randomBytes(16).toString('hex')}`;
      const last4 = i.cardDigits.slice(-4);
      await db('sandbox_card_tokens').insert({
        id,
        user_id: i.userId,
        brand: i.brand,
        last4,
        expiration_month: i.expirationMonth,
        expiration_year: i.expirationYear,
        holder_name: i.holderName,
        doc_number: i.docNumber,
        outcome: sandboxCardOutcome(i.cardDigits),
        expires_at: new Date(Date.now() + SANDBOX_TOKEN_TTL_MINUTES * 60_000),
      });
      return { id, brand: i.brand, last4 };
    },

    /** Consumes the token (single use, unexpired, the same user's) into a saved card. */
    async saveCard(i: SaveCardInput): Promise<SavedCard> {
      return db.transaction(async (trx) => {
        const [tok] = await trx('sandbox_card_tokens')
          .where({ id: i.token, user_id: i.userId })
          .whereNull('consumed_at')
          .where('expires_at', '>', trx.fn.now())
          .update({ consumed_at: trx.fn.now() })
          .returning('*');
        if (!tok) throw new ProviderError('sandbox card token unknown, used or expired', false, 'card_token_invalid');
        const customerId = i.customerId ?? `sbxcus_${i.userId}`;
        const cardId = `sbxcard_${randomBytes(12).toString('hex')}`;
        await trx('sandbox_cards').insert({
          id: cardId,
          customer_id: customerId,
          user_id: i.userId,
          brand: tok.brand,
          last4: tok.last4,
          outcome: tok.outcome,
        });
        return { customerId, cardId, brand: tok.brand, last4: tok.last4 };
      });
    },

    /**
     * One decided charge per idempotency key; every call is recorded in sandbox_card_calls (the
     * calls the "provider" received). A transient-class card fails twice per key, then approves.
     */
    async chargeCard(i: ChargeCardInput): Promise<CardCharge> {
      const card = await db('sandbox_cards').where({ id: i.cardId, customer_id: i.customerId }).first();
      if (!card) throw new ProviderError('sandbox card unknown', false, 'card_unknown');
      const answer = (row: { charge_id: string; result: string; amount_cents: number; created_at: Date }): CardCharge => ({
        providerPaymentId: row.charge_id,
        externalReference: String(i.paymentId),
        status: row.result === 'approved' ? 'approved' : 'rejected',
        amountCents: row.amount_cents,
        paidAt: row.result === 'approved' ? new Date(row.created_at) : null,
        statusDetail: row.result === 'approved' ? 'accredited' : 'cc_rejected_other_reason',
        answer: {
          id: row.charge_id,
          status: row.result,
          status_detail: row.result === 'approved' ? 'accredited' : 'cc_rejected_other_reason',
          brand: card.brand,
          last4: card.last4,
        },
      });
      const decidedRow = () =>
        db('sandbox_card_calls').where({ idempotency_key: i.idempotencyKey }).whereIn('result', ['approved', 'rejected']).first();
      const decided = await decidedRow();
      if (decided) {
        // The same key again (a retry after a crash): the same charge, recorded as a replay.
        await db('sandbox_card_calls').insert({
          card_id: card.id,
          idempotency_key: i.idempotencyKey,
          amount_cents: i.amountCents,
          result: 'replay',
          charge_id: decided.charge_id,
        });
        return answer(decided);
      }
      if (card.outcome === 'transient') {
        const failures = await db('sandbox_card_calls')
          .where({ idempotency_key: i.idempotencyKey, result: 'transient_error' })
          .count<{ c: string }[]>({ c: '*' });
        if (Number(failures[0].c) < 2) {
          await db('sandbox_card_calls').insert({
            card_id: card.id,
            idempotency_key: i.idempotencyKey,
            amount_cents: i.amountCents,
            result: 'transient_error',
          });
          throw new ProviderError('sandbox: temporary failure of the card network', true, 'temporarily_unavailable');
        }
      }
      const result = card.outcome === 'decline' ? 'rejected' : 'approved';
      const [row] = await db('sandbox_card_calls')
        .insert({
          card_id: card.id,
          idempotency_key: i.idempotencyKey,
          amount_cents: i.amountCents,
          result,
          charge_id: `sbxchg_${randomBytes(12).toString('hex')}`,
        })
        .onConflict(db.raw(`(idempotency_key) WHERE result IN ('approved', 'rejected')`))
        .ignore()
        .returning('*');
      return answer(row ?? (await decidedRow()));
    },
  };
  return provider;
}
