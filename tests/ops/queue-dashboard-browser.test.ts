import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { describeBrowser, launchChromium } from '../helpers/browser';

/**
 * The queue dashboard in a real Chromium, through the signed link: it renders under its own CSP
 * (no violation), lists the project's queue, and the screenshots (desktop 1280, phone 390) are
 * kept in docs/screenshots/admin/.
 */
const SHOTS = path.resolve(__dirname, '../../docs/screenshots/admin');

describeBrowser('queue dashboard in a browser', () => {
  let t: TestContext;
  let browser: Browser;
  beforeAll(async () => {
    t = await createTestContext();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [label, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${label}: the link opens the dashboard, which renders with no CSP violation`, async () => {
      const admin = await createUser(t, { admin: true });
      await t.services.queue.enqueue('mail.send', { outboxId: 1 }, { delay: 3_600_000 });
      const link = await t.api('POST', '/api/admin/ops/link', { token: admin.token, body: {} });
      const u = new URL(link.body.url);
      const context = await browser.newContext({ viewport, locale: 'pt-BR' });
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      await page.addInitScript(() => {
        (globalThis as any).addEventListener('securitypolicyviolation', (e: any) =>
          console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`),
        );
      });
      try {
        await page.goto(t.url + u.pathname + u.search);
        expect(new URL(page.url()).pathname).toMatch(/^\/ops\/queues/);
        // The board lists the project's queue ('main') once its scripts ran.
        await page.getByText('main', { exact: true }).first().waitFor({ timeout: 20_000 });
        expect(await page.title()).toBe('Cota Verde — filas');
        const cookies = await context.cookies();
        const ops = cookies.find((c) => c.name === 'cv_ops')!;
        expect(ops).toMatchObject({ path: '/ops', httpOnly: true, sameSite: 'Strict' });
        expect(violations).toEqual([]);
        fs.mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SHOTS, `ops-queues-${label}.png`), animations: 'disabled' });
      } finally {
        await context.close();
      }
    });
  }
});
