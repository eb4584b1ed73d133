import type { Db, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { ProviderError } from '../payments/providers/types';
import { AUTOPAY_MESSAGES as M, cardBrand, isValidDoc, maskDoc } from '../shared/autopay';
import { onlyDigits } from '../shared/validation';
import type { AutopayCardConfig, AutopayClaims, AutopayProfile, AutopaySaveResult, SandboxCardToken } from '../shared/api/autopay';
import { CARD_CLEARED, SandboxTokenCommand, SaveAutopayCommand, isMaskedDoc } from './schema';
import { label, releaseRun, type ProfileRow, type RunRow } from './runs';
import type { AutopayDeps } from './service';

/**
 * A customer's autopay profile: the saved card (tokenized by the browser, RULES A5), the captive
 * numbers (one active owner each, RULES A1), cancelling, and forgetting an anonymized account.
 */
export interface Profiles {
  /** An account was anonymized: its saved card's holder and document and its captive numbers go. */
  forgetUser(trx: Trx, user: { id: number }): Promise<void>;
  cardConfig(): AutopayCardConfig;
  tokenize(userId: number, input: unknown): Promise<SandboxCardToken>;
  get(userId: number): Promise<AutopayProfile>;
  save(userId: number, input: unknown): Promise<AutopaySaveResult>;
  cancel(userId: number): Promise<AutopaySaveResult>;
  claims(userId: number): Promise<AutopayClaims>;
}

export function createProfiles(deps: AutopayDeps): Profiles {
  const { db, provider, logger } = deps;

  const emptyProfile = (): AutopayProfile => ({
    active: false,
    numbers: [],
    brand: null,
    last4: null,
    holder_name: null,
    doc_number: null,
    has_card: false,
  });

  async function numbersOf(profileId: number): Promise<number[]> {
    const rows: Array<{ n: number }> = await db('autopay_captive_numbers').where({ profile_id: profileId }).orderBy('n').select('n');
    return rows.map((r) => r.n);
  }

  const cardOf = (p: Pick<ProfileRow, 'provider_card_id' | 'brand' | 'last4'> | undefined) => ({
    has_card: !!p?.provider_card_id,
    brand: p?.provider_card_id ? p.brand : null,
    last4: p?.provider_card_id ? p.last4 : null,
  });

  /** Numbers among `numbers` that are another active profile's captive numbers. */
  async function takenByOthers(conn: Db | Trx, userId: number, numbers: number[]): Promise<number[]> {
    if (!numbers.length) return [];
    const rows: Array<{ n: number }> = await conn('autopay_captive_numbers as c')
      .join('autopay_profiles as p', 'p.id', 'c.profile_id')
      .where('c.active', true)
      .whereNot('p.user_id', userId)
      .whereIn('c.n', numbers)
      .orderBy('c.n')
      .select('c.n');
    return rows.map((r) => r.n);
  }

  const conflict = (ns: number[]) =>
    errors.conflict('numbers_conflict', `${M.numbersTaken} Escolha outros no lugar de: ${ns.map(label).join(', ')}.`, { conflicts: ns });

  const service: Profiles = {
    async forgetUser(trx, user) {
      const profile = await trx('autopay_profiles').where({ user_id: user.id }).first('id');
      if (!profile) return;
      await trx('autopay_profiles')
        .where({ id: profile.id })
        .update({ active: false, provider_customer_id: null, ...CARD_CLEARED, updated_at: trx.fn.now() });
      await trx('autopay_captive_numbers').where({ profile_id: profile.id }).update({ active: false });
    },

    cardConfig() {
      return provider.cardConfig() as AutopayCardConfig;
    },

    async tokenize(userId, input) {
      if (!deps.sandbox || provider.name !== 'sandbox') throw errors.notFound('not_found', 'Rota não encontrada.');
      const v = SandboxTokenCommand.parse(input);
      return deps.sandbox.tokenizeCard({
        userId,
        cardDigits: v.card_number,
        brand: cardBrand(v.card_number),
        expirationMonth: v.expiration_month,
        expirationYear: v.expiration_year,
        holderName: v.cardholder_name,
        docNumber: onlyDigits(v.doc_number),
      });
    },

    async get(userId) {
      const p: ProfileRow | undefined = await db('autopay_profiles').where({ user_id: userId }).first();
      if (!p) return emptyProfile();
      return {
        active: p.active,
        numbers: await numbersOf(p.id),
        ...cardOf(p),
        holder_name: p.holder_name,
        doc_number: maskDoc(p.doc_number),
      };
    },

    async save(userId, input) {
      const cmd = SaveAutopayCommand.parse(input);
      const token = cmd.card_token || null;
      const holder = cmd.holder_name?.trim() || null;
      const docRaw = cmd.doc_number?.trim() || null;
      const docGiven = docRaw && !isMaskedDoc(docRaw) ? onlyDigits(docRaw) : null;
      if (token && (!holder || !docRaw)) throw errors.validation('card_incomplete', M.cardIncomplete);
      if (docGiven !== null && !isValidDoc(docGiven))
        throw errors.validation('validation_error', M.docInvalid, {
          details: [{ path: 'doc_number', message: M.docInvalid, code: 'custom' }],
        });
      if (docRaw && !docGiven && token)
        throw errors.validation('validation_error', M.docInvalid, {
          details: [{ path: 'doc_number', message: M.docInvalid, code: 'custom' }],
        });
      // Cheap check first: a lost race need not spend the card token.
      if (cmd.active) {
        const taken = await takenByOthers(db, userId, cmd.numbers);
        if (taken.length) throw conflict(taken);
      }
      const existing: ProfileRow | undefined = await db('autopay_profiles').where({ user_id: userId }).first();
      let card: { customerId: string; cardId: string; brand: string; last4: string } | null = null;
      if (token) {
        if (!provider.saveCard) throw errors.conflict('card_unsupported', M.saveFailedCard);
        const user = await db('users').where({ id: userId }).first('email', 'name');
        try {
          card = await provider.saveCard({
            userId,
            email: user.email,
            name: user.name,
            token,
            holderName: holder!,
            docNumber: docGiven!,
            customerId: existing?.provider === provider.name ? existing.provider_customer_id : null,
          });
        } catch (e) {
          if (e instanceof ProviderError && !e.retryable) throw errors.validation('card_token_invalid', M.tokenInvalid);
          logger.warn({ userId, err: (e as Error).message }, 'autopay: saving the card at the provider failed');
          throw new DomainError(
            'unavailable',
            'provider_unavailable',
            'O provedor de pagamento está indisponível no momento. Tente novamente em instantes.',
          );
        }
      }
      try {
        const result = await db.transaction(async (trx) => {
          const [p]: ProfileRow[] = await trx('autopay_profiles')
            .insert({ user_id: userId, provider: provider.name })
            .onConflict('user_id')
            .merge({ updated_at: trx.fn.now() })
            .returning('*');
          const beforeNumbers: Array<{ n: number }> = await trx('autopay_captive_numbers')
            .where({ profile_id: p.id })
            .orderBy('n')
            .select('n');
          const patch: Partial<ProfileRow> & Record<string, unknown> = { active: cmd.active, updated_at: trx.fn.now() };
          if (card)
            Object.assign(patch, {
              provider: provider.name,
              provider_customer_id: card.customerId,
              provider_card_id: card.cardId,
              brand: card.brand,
              last4: card.last4,
            });
          if (holder) patch.holder_name = holder;
          if (docGiven) patch.doc_number = docGiven;
          const hasCard = !!(card || p.provider_card_id);
          if (cmd.active && !hasCard) throw errors.validation('card_required', M.needCard);
          await trx('autopay_captive_numbers').where({ profile_id: p.id }).del();
          // Sorted: concurrent saves insert into the unique index in one order (no deadlock).
          await trx('autopay_captive_numbers').insert(cmd.numbers.map((n) => ({ profile_id: p.id, n, active: cmd.active })));
          const [after]: ProfileRow[] = await trx('autopay_profiles').where({ id: p.id }).update(patch).returning('*');
          await audit(trx, {
            actorUserId: userId,
            actor: 'user',
            action: 'autopay.saved',
            entity: 'autopay_profile',
            entityId: p.id,
            data: {
              before: { active: p.active, numbers: beforeNumbers.map((r) => r.n), brand: p.brand, last4: p.last4 },
              after: { active: after.active, numbers: cmd.numbers, brand: after.brand, last4: after.last4, new_card: !!card },
            },
          });
          return { card: cardOf(after), active: after.active, numbers: cmd.numbers };
        });
        logger.info({ userId, active: result.active, count: result.numbers.length, newCard: !!card }, 'autopay preferences saved');
        return result;
      } catch (e) {
        if (isUniqueViolation(e, 'autopay_captive_one_active_owner')) {
          const taken = await takenByOthers(db, userId, cmd.numbers);
          throw conflict(taken.length ? taken : cmd.numbers);
        }
        throw e;
      }
    },

    async cancel(userId) {
      const touched = new Set<number>();
      await db.transaction(async (trx) => {
        const p: ProfileRow | undefined = await trx('autopay_profiles').where({ user_id: userId }).forUpdate().first();
        if (!p) return;
        const beforeNumbers: Array<{ n: number }> = await trx('autopay_captive_numbers')
          .where({ profile_id: p.id })
          .orderBy('n')
          .select('n');
        await trx('autopay_captive_numbers').where({ profile_id: p.id }).del();
        await trx('autopay_profiles')
          .where({ id: p.id })
          .update({
            active: false,
            provider_customer_id: p.provider_customer_id, // the provider's customer stays ours to reuse
            ...CARD_CLEARED,
            updated_at: trx.fn.now(),
          });
        // Holds not yet charged go back to the board now (a charge in flight finishes).
        const held: RunRow[] = await trx('autopay_runs').where({ profile_id: p.id, status: 'held' }).orderBy('id').forUpdate().select('*');
        for (const r of held) {
          const d = await releaseRun(trx, r, 'compra automática cancelada antes da cobrança');
          if (d) touched.add(d);
        }
        await audit(trx, {
          actorUserId: userId,
          actor: 'user',
          action: 'autopay.cancelled',
          entity: 'autopay_profile',
          entityId: p.id,
          data: {
            before: { active: p.active, numbers: beforeNumbers.map((r) => r.n), brand: p.brand, last4: p.last4 },
            after: { active: false, numbers: [], card: null },
            released_runs: held.map((r) => r.id),
          },
        });
      });
      for (const d of touched) deps.draws.invalidateBoard(d);
      return { card: { has_card: false, brand: null, last4: null }, active: false, numbers: [] };
    },

    async claims(userId) {
      const rows: Array<{ n: number; user_id: number; active: boolean }> = await db('autopay_captive_numbers as c')
        .join('autopay_profiles as p', 'p.id', 'c.profile_id')
        .where((w) => w.where('c.active', true).orWhere('p.user_id', userId))
        .orderBy('c.n')
        .select('c.n', 'p.user_id', 'c.active');
      return {
        taken: rows.filter((r) => Number(r.user_id) !== userId && r.active).map((r) => r.n),
        mine: rows.filter((r) => Number(r.user_id) === userId).map((r) => r.n),
      };
    },
  };
  return service;
}
