/**
 * What the browser tests (tests/e2e) share: the skip when there is no Chromium, one Chromium per
 * file against a test app serving the built SPA (web/dist), a fresh phone-sized pt-BR page per
 * test, signing in, and waiting for antd dialogs to finish opening.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { createTestContext, type TestContext } from './context';
import { expectAccessible } from './a11y';
import { eventually } from './eventually';

const WEB_INDEX = path.resolve(__dirname, '../../web/dist/index.html');

/** Quiet, sandbox-free headless Chromium: no GPU, no QUIC, no background traffic of its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The storefront is mobile first: every browser test runs on a phone-sized screen. */
export const PHONE_VIEWPORT = { width: 390, height: 844 };

/** describe() when CHROMIUM_PATH names a Chromium to drive; otherwise the block is skipped, saying why. */
export function describeBrowser(title: string, fn: () => void): void {
  if (process.env.CHROMIUM_PATH) describe(title, fn);
  else describe.skip(`${title} (skipped: CHROMIUM_PATH is empty, no Chromium to drive)`, fn);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Filled in by the hooks of useBrowser: read it inside hooks and tests, not at collection time. */
export interface BrowserSession {
  t: TestContext;
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/**
 * Registers the hooks of a browser test file: before all, a test app serving the built SPA
 * (`setup` runs on it, e.g. to seed the catalogue) and a Chromium; before each test, a new
 * phone-sized pt-BR browser context (with `permissions` granted for the app's origin) and page.
 */
export function useBrowser(
  opts: {
    setup?: (t: TestContext) => Promise<void>;
    permissions?: string[];
    /** Extra environment of the test app, read when it starts (e.g. ADMIN_MFA_REQUIRED, or the SMTP_URL of a server started before). */
    env?: () => Record<string, string>;
    /** The app's clock for the time-based codes of two-factor sign-in (createTestContext's `now`). */
    now?: () => number;
  } = {},
): BrowserSession {
  const session = {} as BrowserSession;

  beforeAll(async () => {
    if (!fs.existsSync(WEB_INDEX)) {
      throw new Error('web/dist/index.html is missing: build the SPA first (npm run build:web).');
    }
    session.t = await createTestContext({ serveWeb: true, env: opts.env?.(), now: opts.now });
    await opts.setup?.(session.t);
    session.browser = await launchChromium();
  });

  afterAll(async () => {
    await session.browser?.close();
    await session.t?.close();
  });

  beforeEach(async () => {
    session.context = await session.browser.newContext({ viewport: PHONE_VIEWPORT, locale: 'pt-BR' });
    if (opts.permissions) await session.context.grantPermissions(opts.permissions, { origin: session.t.url });
    session.page = await session.context.newPage();
  });

  afterEach(async () => {
    await session.context?.close();
  });

  return session;
}

/** Signs the browser context in: the SPA reads its session token from localStorage (storefront spec §4, key ns_auth_token). */
export async function signInWithToken(context: BrowserContext, token: string): Promise<void> {
  await context.addInitScript(`window.localStorage.setItem('ns_auth_token', ${JSON.stringify(token)});`);
}

/** Fills in and submits the sign-in form of /login. */
export async function submitLogin(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Senha').fill(password);
  await page.locator('form[id="login"] button[type="submit"]').click();
}

/**
 * Waits for a dialog to finish its opening animation: a click that lands while antd is still
 * zooming a dialog in can be lost on a busy machine. Then runs axe on the page with the dialog
 * open (expectAccessible), so every dialog the browser tests open is checked.
 */
export async function settled(dialog: Locator): Promise<Locator> {
  await dialog.waitFor();
  await eventually(
    async () =>
      !(await dialog.evaluate(
        (el: any) =>
          /-(appear|enter)\b/.test(el.className) || el.getAnimations({ subtree: true }).some((a: any) => a.playState === 'running'),
      )),
    'the dialog to stop animating',
    5_000,
  );
  // Every dialog a browser test opens is an accessibility gate too (tests/helpers/a11y.ts).
  const title: string = await dialog.evaluate(
    (el: any) => el.querySelector('.ant-modal-title, .ant-drawer-title, .ant-modal-confirm-title, .ant-popover-title')?.textContent ?? '',
  );
  await expectAccessible(dialog.page(), `diálogo: ${title.trim() || 'sem título'}`);
  return dialog;
}
