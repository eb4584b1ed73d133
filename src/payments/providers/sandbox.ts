import QRCode from 'qrcode';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../platform/db';
import { buildBrCode, pixText } from '../brcode';
import type { CreatePixInput, CreatedPix, PaymentProvider, ProviderPayment, ProviderStatus } from './types';

const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** 30 alphanumerics: within the 26-35 a PIX txid allows, unguessable. */
export function newTxid(): string {
  const bytes = randomBytes(30);
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
  pix: { key: string; merchantName: string; merchantCity: string };
  autoApproveSeconds: number;
}): PaymentProvider & { approve(providerPaymentId: string): Promise<boolean>; cancel(providerPaymentId: string): Promise<boolean>; setStatus(providerPaymentId: string, status: ProviderStatus): Promise<void> } {
  const { db } = deps;
  const provider = {
    name: 'sandbox' as const,

    async createPix(i: CreatePixInput): Promise<CreatedPix> {
      const txid = newTxid();
      const code = buildBrCode({
        key: deps.pix.key,
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
        expires_at: i.expiresAt,
      });
      return { providerPaymentId, txid, copyPasteCode: code, qrCodeBase64: await qrPngBase64(code), status: 'pending' };
    },

    async fetch(providerPaymentId: string): Promise<ProviderPayment | null> {
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
      return { providerPaymentId, externalReference: c.external_reference, status, amountCents: c.amount_cents, paidAt };
    },

    /** Marks the charge paid at the "bank"; true if it changed. */
    async approve(providerPaymentId: string): Promise<boolean> {
      const n = await db('sandbox_charges')
        .where({ provider_payment_id: providerPaymentId, status: 'pending' })
        .update({ status: 'approved', approved_at: db.fn.now() });
      return n > 0;
    },

    async cancel(providerPaymentId: string): Promise<boolean> {
      const n = await db('sandbox_charges').where({ provider_payment_id: providerPaymentId, status: 'pending' }).update({ status: 'cancelled' });
      return n > 0;
    },

    async setStatus(providerPaymentId: string, status: ProviderStatus) {
      await db('sandbox_charges').where({ provider_payment_id: providerPaymentId }).update({ status });
    },
  };
  return provider;
}
