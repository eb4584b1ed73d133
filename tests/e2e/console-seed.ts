/**
 * Realistic data for every admin console page, shared by the console's browser tests: the demo
 * catalogue (seeded by the caller), customers with numbers in the main series, a held raffle
 * decided by a Lotomania result (a winner with a prize), autopay runs (approved and declined) in
 * the current draw, a late-approved payment flagged for review, and the audit trail those left.
 */
import { createUser, type TestContext } from '../helpers/context';
import { readAppConfig } from '../../src/platform/app-config';
import { sellDirectly } from '../draws/fixtures';
import { buyEbooks, makeProductWithDraw } from '../payments/fixtures';
import { CARDS, autopayUser, openNextDraw } from '../autopay/fixtures';

/** Realistic data for every console page; returns the admin and the main series' current draw. */
export async function seedConsole(t: TestContext): Promise<{ admin: Awaited<ReturnType<typeof createUser>>; next: number }> {
  const admin = await createUser(t, { admin: true, name: 'Ana Beatriz Admin', email: 'ana.beatriz@cotaverde.com.br' });
  const names = ['Carlos Eduardo Pereira', 'Fernanda Gonçalves', 'João Victor Araújo', 'Luíza Mendonça Sá', 'Márcio Conceição'];
  const people = [];
  for (const name of names)
    people.push(
      await createUser(t, {
        name,
        email: `${name
          .split(' ')[0]
          .normalize('NFD')
          .replace(/\p{Diacritic}/gu, '')
          .toLowerCase()}.${people.length + 1}@exemplo.com.br`,
      }),
    );
  const cfg = await readAppConfig(t.services.db);
  const first = await t.services.db('draws').where({ infoproduct_id: cfg.main_infoproduct_id, status: 'open' }).first();

  // The first main draw: numbers sold, closed, then decided by a Lotomania contest.
  await sellDirectly(t, first.id, people[0].user.id, [7, 42, 63]);
  await sellDirectly(t, first.id, people[1].user.id, [15, 88]);
  await sellDirectly(t, first.id, people[2].user.id, [3]);
  // Captive numbers: they are held and charged when the next main draw opens.
  const auto1 = await autopayUser(t, [5, 21, 33]);
  const auto2 = await autopayUser(t, [9, 50], CARDS.decline);
  await t.services
    .db('users')
    .where({ id: auto1.user.id })
    .update({ name: 'Patrícia Nogueira', email: 'patricia.nogueira@exemplo.com.br' });
  await t.services
    .db('users')
    .where({ id: auto2.user.id })
    .update({ name: 'Ricardo Albuquerque', email: 'ricardo.albuquerque@exemplo.com.br' });
  const next = await openNextDraw(t, first.id);
  await t.services.autopay.runDraw(next);
  const numbers = [12, 77, 40, 1, 95, 58, 36, 81, 24, 69, 47, 90, 18, 30, 66, 2, 53, 74, 88, 42];
  // Closed two days ago, decided by the contest held the day after.
  await t.services
    .db('draws')
    .where({ id: first.id })
    .update({ opened_at: new Date(Date.now() - 9 * 86_400_000), closed_at: new Date(Date.now() - 2 * 86_400_000) });
  await t.services.results.record(
    { contest_number: 2731, numbers, drawn_at: new Date(Date.now() - 86_400_000) },
    { actorUserId: null, actor: 'cli', source: 'cli' },
  );
  const decided = await t.services.db('draws').where({ id: first.id }).first();
  if (decided.winner_user_id) {
    await t.api('PATCH', `/api/admin/winners/${first.id}`, {
      token: admin.token,
      body: { product_name: 'Smartphone Galaxy A15 128 GB', product_link: 'https://exemplo.com.br/premios/galaxy-a15' },
    });
  }

  // The current draw: customers with numbers.
  await sellDirectly(t, next, people[0].user.id, [11, 27]);
  await sellDirectly(t, next, people[3].user.id, [44, 45, 46, 99]);
  await sellDirectly(t, next, people[4].user.id, [0]);

  // A late-approved PIX (flagged) and a balance adjustment, through the services and the API.
  const { product, draw: other } = await makeProductWithDraw(t, { price_cents: 1490 });
  await t.services
    .db('infoproducts')
    .where({ id: product.id })
    .update({ title: 'Planilha de Gastos Domésticos', sku: 'EBOOK-PLANILHA-GASTOS' });
  await t.services.db('draws').where({ id: other.id }).update({ title: 'Planilha de Gastos Domésticos' });
  const late = await buyEbooks(t, people[1].token, product.id, 1, 1490);
  await t.services
    .db('payments')
    .where({ id: late.paymentId })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  await t.services.payments.poll(late.paymentId);
  await t.services.payments.approve(late.paymentId, { via: 'cli' });
  await t.api('POST', '/api/admin/dashboard/ticket-price', { token: admin.token, body: { price_cents: 1000 } });
  return { admin, next };
}
