import { z } from 'zod';
import type { Conn, Db } from '../platform/db';
import { audit } from '../platform/audit';
import { readAppConfig, writeAppConfig } from '../platform/app-config';
import { iso } from '../shared/iso';
import { claimFor, prizeOf, type MyPrize, type PrizeContact } from '../shared/prize';

/**
 * The winner's prize and how to claim it (RULES W10): the store's contact for prizes (WhatsApp and
 * e-mail, kept in app_config and edited by an admin), and each winner's own prizes with the claim
 * deadline computed here from when the result was recorded (draws.realized_at).
 */

const WHATSAPP_MESSAGE = 'Informe o WhatsApp com DDD (10 ou 11 dígitos) ou com o código do país (55 + DDD + número).';
const EMAIL_MESSAGE = 'Informe um e-mail válido para o contato do prêmio.';

/** '', null → cleared; Brazilian numbers without the country code get 55. */
const Whatsapp = z.union([z.string({ error: WHATSAPP_MESSAGE }), z.null()], { error: WHATSAPP_MESSAGE }).transform((v, ctx) => {
  const raw = (v ?? '').trim();
  if (!raw) return null;
  if (!/^[\d\s()+.-]+$/.test(raw)) {
    ctx.addIssue({ code: 'custom', message: WHATSAPP_MESSAGE });
    return z.NEVER;
  }
  const digits = raw.replace(/\D/g, '');
  if (digits.length === 10 || digits.length === 11) return `55${digits}`;
  if ((digits.length === 12 || digits.length === 13) && digits.startsWith('55')) return digits;
  ctx.addIssue({ code: 'custom', message: WHATSAPP_MESSAGE });
  return z.NEVER;
});

const Email = z.union([z.string({ error: EMAIL_MESSAGE }), z.null()], { error: EMAIL_MESSAGE }).transform((v, ctx) => {
  const e = (v ?? '').trim();
  if (!e) return null;
  if (e.length > 254 || !z.string().email().safeParse(e).success) {
    ctx.addIssue({ code: 'custom', message: EMAIL_MESSAGE });
    return z.NEVER;
  }
  return e.toLowerCase();
});

/** PUT /api/admin/settings/prize-contact: {whatsapp?, email?}, at least one ('' or null clears it). */
export const PrizeContactCommand = z
  .strictObject(
    { whatsapp: Whatsapp.optional(), email: Email.optional() },
    {
      error: (iss) =>
        iss.code === 'unrecognized_keys' ? 'Só são aceitos os campos whatsapp e email.' : 'Envie um objeto JSON com whatsapp e/ou email.',
    },
  )
  .refine((v) => v.whatsapp !== undefined || v.email !== undefined, { message: 'Informe o WhatsApp ou o e-mail do contato do prêmio.' });

export async function readPrizeContact(conn: Conn): Promise<PrizeContact> {
  const c = await readAppConfig(conn);
  return { whatsapp: c.prize_contact_whatsapp, email: c.prize_contact_email };
}

export interface PrizeService {
  contact(): Promise<PrizeContact>;
  /** An admin changes the contact: app_config and its audit row in one transaction. */
  updateContact(adminId: number, input: unknown): Promise<PrizeContact>;
  /** GET /api/me/prizes: the caller's prizes, newest first (only their own wins). */
  mine(userId: number, now?: Date): Promise<MyPrize[]>;
}

export function createPrizeService(deps: { db: Db }): PrizeService {
  const { db } = deps;
  return {
    contact: () => readPrizeContact(db),

    async updateContact(adminId, input) {
      const cmd = PrizeContactCommand.parse(input);
      return db.transaction(async (trx) => {
        const before = await readPrizeContact(trx);
        const patch: { prize_contact_whatsapp?: string | null; prize_contact_email?: string | null } = {};
        if (cmd.whatsapp !== undefined) patch.prize_contact_whatsapp = cmd.whatsapp;
        if (cmd.email !== undefined) patch.prize_contact_email = cmd.email;
        await writeAppConfig(trx, patch);
        await audit(trx, {
          actorUserId: adminId,
          actor: 'admin',
          action: 'config.updated',
          entity: 'app_config',
          data: { ...patch, before: { prize_contact_whatsapp: before.whatsapp, prize_contact_email: before.email } },
        });
        return readPrizeContact(trx);
      });
    },

    async mine(userId, now = new Date()) {
      const [rows, contact] = await Promise.all([
        db('draws')
          .where({ winner_user_id: userId, status: 'drawn' })
          .whereNotNull('winner_number')
          .orderBy([
            { column: 'realized_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .select('id', 'title', 'winner_number', 'realized_at', 'prize_cents', 'product_name', 'product_link', 'redeemed'),
        readPrizeContact(db),
      ]);
      return rows.map((d) => ({
        draw_id: d.id,
        draw_title: d.title,
        winner_number: d.winner_number,
        realized_at: iso(d.realized_at) as string,
        prize: prizeOf(d),
        claim: claimFor(d, contact, now),
        draw_path: `/me/draw/${d.id}`,
      }));
    },
  };
}
