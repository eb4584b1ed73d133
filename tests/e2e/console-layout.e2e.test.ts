/**
 * The admin console's layout and accessibility, measured from the DOM on realistic data
 * (tests/e2e/console-seed.ts): on a 390 px phone no page scrolls sideways; at 1280 px no table
 * cell cuts its text (titles, names and e-mails wrap) and no header is clipped; every page has one
 * `main` landmark and one `h1`; icon-only buttons are named by their tooltip's text; axe finds
 * no critical or serious violation on any page, phone or desktop. And a status chip of a draw
 * with sold numbers asks for confirmation before closing or reopening it (account spec §2, like
 * NOVO SORTEIO); a draw with nothing sold changes at once.
 */
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { TestContext } from '../helpers/context';
import { describeBrowser, PHONE_VIEWPORT, settled, signInWithToken, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { expectAccessible } from '../helpers/a11y';
import { saveFullPageShot } from '../helpers/screenshots';
import { seedDemo } from '../../seeds/demo';
import { makeDraw } from '../draws/fixtures';
import { seedConsole } from './console-seed';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');
const DESKTOP = { width: 1280, height: 900 };
const pad3 = (n: number) => String(n).padStart(3, '0');

const PAGES: Array<{ path: string; heading: string }> = [
  { path: '/admin', heading: 'Painel administrativo' },
  { path: '/admin/sorteios', heading: 'Sorteios realizados' },
  { path: '/admin/clientes', heading: 'Clientes com saldo ativo' },
  { path: '/admin/vencedores', heading: 'Vencedores' },
  { path: '/admin/AdminClientesUser', heading: 'Cadastro de Clientes' },
  { path: '/admin/sorteiosAtivos', heading: 'Sorteio Ativo — Compradores' },
  { path: '/admin/infoproducts', heading: 'Cadastro de Infoprodutos' },
  { path: '/admin/pagamentos', heading: 'Pagamentos para revisar' },
  { path: '/admin/auditoria', heading: 'Auditoria' },
];

/** What the DOM says about the page's layout (runs in the page; this file has no DOM types). */
function measure(page: Page) {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const visible = (el: any) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
    // Table cells whose content is wider than the cell (cut, or spilling over its neighbour),
    // and cells antd truncates with an ellipsis.
    const clipped: string[] = [];
    for (const cell of doc.querySelectorAll('.admin-console-content .ant-table-cell')) {
      if (!visible(cell) || cell.classList.contains('ant-table-selection-column')) continue;
      const cut = cell.scrollWidth > cell.clientWidth + 1 || cell.classList.contains('ant-table-cell-ellipsis');
      if (cut) clipped.push(`${cell.tagName}: ${(cell.textContent || '').trim().slice(0, 60)} (${cell.scrollWidth} > ${cell.clientWidth})`);
    }
    // Tables that need a sideways scroll to show all their columns (at 1280 none should).
    const scrolling: string[] = [];
    for (const box of doc.querySelectorAll('.admin-console-content .ant-table-content')) {
      if (visible(box) && box.scrollWidth > box.clientWidth + 1)
        scrolling.push(`${(box.querySelector('thead')?.textContent || '').slice(0, 60)} (${box.scrollWidth} > ${box.clientWidth})`);
    }
    // Icon-only buttons: their accessible name and their title (a tooltip of the browser's) if any.
    const iconOnly: Array<{ index: number; name: string; title: string | null }> = [];
    [...doc.querySelectorAll('.admin-console-content button.ant-btn-icon-only')].forEach((b: any, index: number) => {
      if (visible(b))
        iconOnly.push({ index, name: b.getAttribute('aria-label') || (b.textContent || '').trim(), title: b.getAttribute('title') });
    });
    return {
      scrollWidth: doc.documentElement.scrollWidth as number,
      mains: doc.querySelectorAll('main, [role="main"]').length as number,
      h1s: [...doc.querySelectorAll('h1')].filter(visible).map((h: any) => h.textContent.trim()) as string[],
      clipped,
      scrolling,
      iconOnly,
    };
  });
}

describeBrowser('admin console layout and accessibility', () => {
  const session = useBrowser({ setup: (app) => seedDemo(app.services.db).then(() => undefined) });
  let t: TestContext;
  let context: BrowserContext;
  let page: Page;
  beforeEach(() => ({ t, context, page } = session));
  // The tests share the file's database: seeded once.
  let seeded: ReturnType<typeof seedConsole> | null = null;
  const seedOnce = () => (seeded ??= seedConsole(t));

  async function open(p: { path: string; heading: string }) {
    await page.goto(`${t.url}${p.path}`);
    await page.getByRole('heading', { name: p.heading, exact: true, level: 1 }).waitFor();
    await eventually(async () => (await page.locator('.ant-skeleton, .ant-spin-spinning').count()) === 0 || null, `${p.path} to load`);
  }

  it('every page: no sideways scroll on a phone, whole cells at 1280, one main and one h1, no serious axe violation', async () => {
    const { admin } = await seedOnce();
    await signInWithToken(context, admin.token);

    const report: Record<string, unknown> = {};
    for (const [label, viewport] of [
      ['phone', PHONE_VIEWPORT],
      ['desktop', DESKTOP],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const p of PAGES) {
        await open(p);
        const m = await measure(page);
        report[`${label} ${p.path}`] = m;
        expect({ page: p.path, label, mains: m.mains, h1s: m.h1s }).toEqual({ page: p.path, label, mains: 1, h1s: [p.heading] });
        if (label === 'phone') expect({ page: p.path, width: m.scrollWidth }).toEqual({ page: p.path, width: PHONE_VIEWPORT.width });
        else expect({ page: p.path, clipped: m.clipped, scrolling: m.scrolling }).toEqual({ page: p.path, clipped: [], scrolling: [] });
        // Icon-only buttons: the name is the tooltip's text (antd's Tooltip, shown on hover, or the title).
        for (const b of m.iconOnly.slice(0, 8)) {
          let tip = b.title;
          if (tip == null) {
            // The tooltip this hover opens: the one showing this button's name, or (failing) the last shown.
            await page.locator('.admin-console-content button.ant-btn-icon-only').nth(b.index).hover();
            const exact = new RegExp(`^${b.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
            const bubble = page.locator('.ant-tooltip:not(.ant-tooltip-hidden) .ant-tooltip-container').filter({ hasText: exact });
            tip = await bubble
              .first()
              .waitFor({ timeout: 5000 })
              .then(() => b.name)
              .catch(async () => {
                // No tooltip with its name: either the button has no tooltip (its name is all it
                // says) or the tooltip says something else — then that text fails the comparison.
                const shown = await page.locator('.ant-tooltip:not(.ant-tooltip-hidden) .ant-tooltip-container').allTextContents();
                return shown.length ? shown.join(' | ') : b.name;
              });
            await page.mouse.move(0, 0);
          }
          expect({ page: p.path, name: b.name }).toEqual({ page: p.path, name: tip });
        }
        await expectAccessible(page, `console ${p.path} (${label})`);
      }
    }

    // At 1280 the users table shows the long e-mails whole, and the draws table the full titles.
    await open(PAGES.find((p) => p.path === '/admin/AdminClientesUser')!);
    const mail = page.getByRole('cell', { name: 'patricia.nogueira@exemplo.com.br', exact: true });
    await mail.waitFor();
    expect(await mail.evaluate((c: any) => c.scrollWidth <= c.clientWidth + 1)).toBe(true);
    await open(PAGES[0]);
    const title = page.locator('.draws-card .ant-table-cell').filter({ hasText: 'Planilha de Gastos Domésticos' }).first();
    expect(await title.evaluate((c: any) => c.scrollWidth <= c.clientWidth + 1 && !c.classList.contains('ant-table-cell-ellipsis'))).toBe(
      true,
    );
  }, 300_000);

  it('a status chip of a draw with sold numbers asks first; one with nothing sold asks before closing, reopens at once', async () => {
    const { admin, next } = await seedOnce();
    const empty = await makeDraw(t, { title: 'Sorteio sem vendas' });
    await signInWithToken(context, admin.token);
    const statusOf = async (id: number) => (await t.services.db('draws').where({ id }).first()).status as string;

    for (const [label, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE_VIEWPORT],
    ] as const) {
      await page.setViewportSize(viewport);
      await open(PAGES[0]);
      const item = (id: number) => page.locator(`.draws-card [data-draw-id="${id}"]`);
      const chip = (id: number) => item(id).getByRole('button', { name: new RegExp(`^Status \\w+ do sorteio #${pad3(id)}`) });
      const wasOpen = (await statusOf(next)) === 'open';
      const verb = wasOpen ? 'Fechar' : 'Reabrir';

      // Cancel: nothing changes.
      await chip(next).click();
      let dialog = await settled(page.getByRole('dialog').filter({ hasText: `${verb} o sorteio #${pad3(next)}?` }));
      await dialog.getByText(/^\d+ números vendidos$/).waitFor();
      await saveFullPageShot(page, SHOTS, `console-chip-confirm-${label}`); // axe runs on it first
      await dialog.getByRole('button', { name: 'Cancelar' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(await statusOf(next)).toBe(wasOpen ? 'open' : 'closed');

      // Confirm: the status changes, in the database and on the chip.
      await chip(next).click();
      dialog = await settled(page.getByRole('dialog').filter({ hasText: `${verb} o sorteio #${pad3(next)}?` }));
      await dialog.getByRole('button', { name: `${verb} sorteio` }).click();
      await eventually(async () => (await statusOf(next)) === (wasOpen ? 'closed' : 'open') || null, 'the status to change');
      await chip(next)
        .filter({ hasText: wasOpen ? 'FECHADO' : 'ABERTO' })
        .waitFor();

      // Nothing sold: closing still asks (issue 26, RULES D9's console note); reopening does not.
      const emptyWasOpen = (await statusOf(empty.id)) === 'open';
      await chip(empty.id).click();
      if (emptyWasOpen) {
        const ask = await settled(page.getByRole('dialog').filter({ hasText: `Fechar o sorteio #${pad3(empty.id)}?` }));
        await ask.getByText('nenhum número vendido').waitFor();
        await ask.getByRole('button', { name: 'Fechar sorteio' }).click();
        await ask.waitFor({ state: 'hidden' });
      }
      await eventually(async () => (await statusOf(empty.id)) === (emptyWasOpen ? 'closed' : 'open') || null, 'the empty draw to change');
      expect(await page.getByRole('dialog').count()).toBe(0);
      await chip(empty.id)
        .filter({ hasText: emptyWasOpen ? 'FECHADO' : 'ABERTO' })
        .waitFor();
    }
  }, 240_000);
});
