import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/platform/paths';
import type { Db } from '../src/platform/db';
import { hashPassword } from '../src/auth/service';
import { insertDrawWithNumbers } from '../src/draws/queries';
import { writeAppConfig } from '../src/platform/app-config';
import { isProductionEnv } from '../src/platform/config';
import { DEMO_ACCOUNTS } from './demo-accounts';

const EBOOKS_DIR = path.join(PROJECT_ROOT, 'storage', 'ebooks');

/** The demo catalogue: real covers (public/covers) and small real PDFs (storage/ebooks). */
export const DEMO_PRODUCTS = [
  {
    sku: 'EBOOK-GUIA-LOTOMANIA',
    title: 'Guia Prático da Lotomania',
    subtitle: 'Regras, probabilidades e orçamento',
    description: 'Compre o e-book e escolha 1 número entre os 100 da tabela.',
    cover_url: '/covers/guia-lotomania.svg',
    file: 'guia-lotomania.pdf',
    price_cents: 1000,
    default_prize_cents: 50_000,
  },
  {
    sku: 'EBOOK-ESTATISTICA',
    title: 'Estatística para Apostadores',
    subtitle: 'Entenda as chances antes de jogar',
    description: 'Um e-book sobre probabilidade e valor esperado. Cada e-book dá direito a 1 número.',
    cover_url: '/covers/estatistica-para-apostadores.svg',
    file: 'estatistica-para-apostadores.pdf',
    price_cents: 500,
    default_prize_cents: 25_000,
  },
  {
    sku: 'EBOOK-FINANCAS',
    title: 'Finanças em Dia',
    subtitle: 'Orçamento pessoal sem mistério',
    description: 'Organize seu orçamento e concorra a um prêmio escolhendo seu número.',
    cover_url: '/covers/financas-em-dia.svg',
    file: 'financas-em-dia.pdf',
    price_cents: 200,
    default_prize_cents: 10_000,
  },
];

/** What the demo seed says when the database already has data: it then writes nothing at all. */
export const SEED_SKIPPED = 'o banco já tem dados: nada foi criado nem alterado';

/** Tables whose rows mean "someone already uses this database" (the demo's own rows included). */
const IN_USE_TABLES = ['users', 'categories', 'infoproducts', 'draws', 'app_config'];

/**
 * Demo data for development (`npm start`), created once, on an empty database: when any user,
 * category, e-book, draw or setting exists, nothing is created or changed — an operator's work
 * (a draw closed on purpose, an e-book removed, a renamed category) stays as it is on every later
 * start. Refuses production.
 */
export async function seedDemo(db: Db): Promise<string> {
  if (isProductionEnv(process.env.NODE_ENV)) throw new Error('the demo seed never runs in production');
  const created: string[] = [];
  const skipped = await db.transaction(async (trx) => {
    // One seed at a time (two `npm start` of one checkout): the second sees the first's rows.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['cotaverde.seed-demo']);
    for (const table of IN_USE_TABLES) if (await trx(table).first(trx.raw('1'))) return true;
    let category = await trx('categories').where({ slug: 'lotomania' }).first();
    if (!category) {
      [category] = await trx('categories').insert({ slug: 'lotomania', name: 'Lotomania', position: 1 }).returning('*');
      created.push('categoria lotomania');
    }
    const productIds: number[] = [];
    for (const p of DEMO_PRODUCTS) {
      let product = await trx('infoproducts').where({ sku: p.sku }).first();
      if (!product) {
        const file = path.join(EBOOKS_DIR, p.file);
        const sha = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
        [product] = await trx('infoproducts')
          .insert({
            sku: p.sku,
            title: p.title,
            subtitle: p.subtitle,
            description: p.description,
            cover_url: p.cover_url,
            file_url: `ebooks/${p.file}`,
            file_sha256: sha,
            price_cents: p.price_cents,
            default_prize_cents: p.default_prize_cents,
            default_total_numbers: 100,
            category_id: category.id,
          })
          .returning('*');
        created.push(`e-book ${p.sku}`);
      }
      productIds.push(product.id);
      const open = await trx('draws').where({ infoproduct_id: product.id, status: 'open' }).first();
      if (!open) {
        await insertDrawWithNumbers(trx, {
          infoproduct_id: product.id,
          title: product.title,
          total_numbers: product.default_total_numbers,
          prize_cents: product.default_prize_cents,
          ticket_price_cents_override: null,
          max_per_user: 0,
        });
        created.push(`sorteio aberto de ${p.sku}`);
      }
    }
    const cfg = await trx('app_config').where({ key: 'main_infoproduct_id' }).first();
    if (!cfg) {
      await writeAppConfig(trx, { main_infoproduct_id: productIds[0] });
      created.push('série principal');
    }
    for (const a of DEMO_ACCOUNTS) {
      const existing = await trx('users').whereRaw('lower(email) = ?', [a.email]).first();
      if (existing) continue;
      await trx('users').insert({
        name: a.name,
        email: a.email,
        phone: a.phone,
        cpf: a.cpf,
        birthdate: a.birthdate,
        password_hash: await hashPassword(a.password),
        role: a.role,
        is_admin: a.role === 'admin',
        accepted_terms_at: new Date(),
      });
      created.push(`conta ${a.email}`);
    }
    return false;
  });
  if (skipped) return SEED_SKIPPED;
  return `criados: ${created.join(', ')}`;
}
