/**
 * Issue 26, copy: every page has its own tab title ("Entrar — Cota Verde", from
 * web/src/routeTitles.ts or the page's own data), and no screen-reader text of the store, the
 * customer area or the console is in English (antd's InputNumber says "Increase Value" whatever
 * its locale: web/src/antd/portugueseLabels.ts). The walk reads every aria-label, title, alt and
 * placeholder of each page (and of a dialog with a number field) at 360, 390 and 1280 px, and runs
 * axe on each page.
 */
import type { Page } from 'playwright-core';
import type { TestContext } from '../helpers/context';
import { createUser } from '../helpers/context';
import { describeBrowser, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { expectAccessible } from '../helpers/a11y';
import { DEMO_PRODUCTS, seedDemo } from '../../seeds/demo';
import { formatTitle, routeTitle } from '../../web/src/routeTitles';

const VIEWPORTS = [
  { width: 360, height: 740 },
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
] as const;
const pad3 = (n: number) => String(n).padStart(3, '0');

/**
 * English words antd and its icons write into labels ("Increase Value", an icon's "close-circle",
 * "Previous Page"…), read word by word ("close-circle" is "close" and "circle"; "e-mail" and
 * "e-book" are Portuguese). Words Portuguese shares (menu, link, ok, total, no) are left out.
 */
const ENGLISH_WORDS = new Set(
  `increase decrease value close previous next page search select open loading clear expand collapse copy more sort filter
  reset cancel show hide delete remove edit upload download check circle plus minus left right up down arrow info exclamation
  question user add logout setting calendar reload eye invisible ellipsis home star lock mail wallet trophy history dashboard
  audit book shopping cart idcard credit chart warning sync save send file picture swap qrcode whats app today now yes back
  forward first last item items of the to and scroll clock outlined filled icon button image picker dropdown toggle drag zoom
  rotate flip prev done apply submit confirm clean empty`.split(/\s+/),
);
const PORTUGUESE_COMPOUNDS = new Set(['e-mail', 'e-mails', 'e-book', 'e-books']);
const isEnglish = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z\u00c0-\u017f-]+/)
    .filter((w) => w && !PORTUGUESE_COMPOUNDS.has(w))
    .some((w) => w.split('-').some((part) => ENGLISH_WORDS.has(part)));

/** Every label a screen reader (or a hover) can read, with where it is. */
function labelsOf(page: Page): Promise<Array<{ attr: string; value: string; where: string }>> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const out: Array<{ attr: string; value: string; where: string }> = [];
    for (const attr of ['aria-label', 'title', 'alt', 'placeholder', 'aria-roledescription', 'aria-valuetext']) {
      for (const el of doc.querySelectorAll(`[${attr}]`)) {
        if (el.tagName === 'TITLE' || el.closest('svg title')) continue;
        const value = String(el.getAttribute(attr) ?? '').trim();
        if (value)
          out.push({
            attr,
            value,
            where: `${el.tagName.toLowerCase()}.${String(el.className?.baseVal ?? el.className ?? '').split(' ')[0]}`,
          });
      }
    }
    return out;
  });
}

/**
 * Not English copy: the draw dialog's status options name the spec's status code beside the
 * Portuguese word ("Aberto (open)", account spec §2 "Status (open/closed)").
 */
const ALLOWED = [/^\p{L}+ \((open|closed)\)$/u];

async function englishLabels(page: Page, where: string): Promise<string[]> {
  return (await labelsOf(page))
    .filter((l) => !ALLOWED.some((re) => re.test(l.value)))
    .filter((l) => isEnglish(l.value))
    .map((l) => `${where}: ${l.where} ${l.attr}="${l.value}"`);
}

async function loaded(page: Page, heading?: string) {
  if (heading) await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
  else await page.locator('h1').first().waitFor();
  await eventually(
    async () => (await page.locator('.ant-skeleton, .ant-spin-spinning, .skeleton').count()) === 0 || null,
    'the page to load',
  );
}

describeBrowser('copy: a tab title per page, Portuguese screen-reader labels', () => {
  const session = useBrowser({ setup: (app) => seedDemo(app.services.db).then(() => undefined) });
  let t: TestContext;
  beforeEach(() => ({ t } = session));

  async function walk(paths: Array<{ path: string; title: string }>, found: string[], label: string, axe = true) {
    const { page } = session;
    for (const p of paths) {
      await page.goto(`${t.url}${p.path}`);
      await loaded(page);
      await eventually(async () => (await page.title()) === p.title || null, `${p.path}: the tab title ${p.title}`, 10_000).catch(() => {});
      expect({ path: p.path, title: await page.title() }).toEqual({ path: p.path, title: p.title });
      found.push(...(await englishLabels(page, `${p.path} (${label})`)));
      if (axe) await expectAccessible(page, `copy ${p.path} (${label})`);
    }
  }

  it('tells English labels from Portuguese ones', () => {
    expect(['Increase Value', 'close-circle', 'user-add', 'whats-app', 'Previous Page'].map(isEnglish)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['E-mail', 'Capa do e-book Finanças em Dia', 'Aumentar valor', 'Menu', 'Fechar mensagem', 'Data de nascimento'].map(isEnglish),
    ).toEqual([false, false, false, false, false, false]);
  });

  it('the store: each page its own title, no English label, at 360, 390 and 1280 px', async () => {
    const db = t.services.db;
    const product = await db('infoproducts').where({ sku: DEMO_PRODUCTS[0].sku }).first();
    const draw = await db('draws').where({ infoproduct_id: product.id, status: 'open' }).first();
    const route = (path: string) => ({ path, title: formatTitle(routeTitle(path), 'Cota Verde') });
    const paths = [
      route('/'),
      route('/infoprodutos'),
      route('/numeros'),
      { path: `/comprar/${product.sku}`, title: `${product.title} — Cota Verde` },
      { path: `/resultado/${draw.id}`, title: `Resultado do Sorteio #${pad3(draw.id)} — Cota Verde` },
      route('/login'),
      route('/cadastro'),
      route('/redefinir-senha'),
      route('/termos'),
      route('/privacidade'),
      route('/jogo-responsavel'),
      route('/nao-existe'),
    ];
    // Every title of the walk is its own: no two pages share a tab name.
    expect(new Set(paths.map((p) => p.title)).size).toBe(paths.length);
    expect(paths[0].title).toBe('Cota Verde · E-books e sorteios');
    expect(paths[2].title).toBe('Escolha seus números — Cota Verde');

    const found: string[] = [];
    for (const viewport of VIEWPORTS) {
      await session.page.setViewportSize(viewport);
      await walk(paths, found, `${viewport.width}px`);
    }
    expect(found).toEqual([]);
  }, 600_000);

  it('the customer area and the console: their titles, and the number fields say "Aumentar valor" / "Diminuir valor"', async () => {
    const { page, context } = session;
    const admin = await createUser(t, { admin: true, name: 'Helena Admin' });
    await signInWithToken(context, admin.token);
    const db = t.services.db;
    const draw = await db('draws').where({ status: 'open' }).orderBy('id').first();
    const route = (path: string) => ({ path, title: formatTitle(routeTitle(path), 'Cota Verde') });
    const paths = [
      route('/conta'),
      { path: `/me/draw/${draw.id}`, title: `Detalhes do Sorteio #${pad3(draw.id)} — Cota Verde` },
      route('/admin'),
      route('/admin/sorteios'),
      route('/admin/clientes'),
      route('/admin/vencedores'),
      route('/admin/AdminClientesUser'),
      route('/admin/sorteiosAtivos'),
      route('/admin/infoproducts'),
      route('/admin/pagamentos'),
      route('/admin/auditoria'),
    ];
    expect(new Set(paths.map((p) => p.title)).size).toBe(paths.length);

    const found: string[] = [];
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      // axe on the console at 390 and 1280 px (as console-layout.e2e.test.ts): at 360 px the
      // held raffles' table is a scrolling region without keyboard access (reported, not this part's).
      await walk(paths, found, `${viewport.width}px`, viewport.width !== 360);
    }

    // The console's number fields (the dashboard's settings: price, prize, numbers): their step
    // buttons in Portuguese, whether antd has just rendered them or renders them again.
    await page.goto(`${t.url}/admin`);
    await loaded(page, 'Painel administrativo');
    const steps = page.locator('.ant-input-number-action');
    await steps.first().waitFor({ state: 'attached' });
    const labels = await steps.evaluateAll((els: any[]) => els.map((e) => e.getAttribute('aria-label')));
    expect(labels.length).toBeGreaterThan(0);
    expect(new Set(labels)).toEqual(new Set(['Aumentar valor', 'Diminuir valor']));
    // A dialog with number fields (the draws card's "Novo": prize, numbers, limit), rendered
    // later in a portal: relabelled too. Its button is named "Novo", not "plus Novo".
    await page.locator('.draws-card').getByRole('button', { name: 'Novo', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.locator('.ant-input-number-action').first().waitFor({ state: 'attached' });
    const inDialog = await dialog
      .locator('.ant-input-number-action')
      .evaluateAll((els: any[]) => els.map((e) => e.getAttribute('aria-label')));
    expect(new Set(inDialog)).toEqual(new Set(['Aumentar valor', 'Diminuir valor']));
    found.push(...(await englishLabels(page, 'diálogo Novo sorteio')));
    await expectAccessible(page, 'copy diálogo Novo sorteio');
    expect(found).toEqual([]);
  }, 600_000);
});
