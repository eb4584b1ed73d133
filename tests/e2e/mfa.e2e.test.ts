/**
 * Browser test of two-factor sign-in and of the ADMIN_EMAILS confirmation page, on a phone (390 px)
 * and a desktop (1280 px), against the real API serving the built SPA, with ADMIN_MFA_REQUIRED on:
 * - an administrator opening the console meets the enrolment screen, reads the secret from it,
 *   activates with a code computed here (otplib), saves the recovery codes (copied and downloaded),
 *   reaches the console, signs out, signs in with password and code (a wrong code first), then
 *   with a recovery code;
 * - a customer turns it on in /conta ('Segurança') and off again (a wrong code first);
 * - /confirmar-email-admin with a real proof link (mailed to a fake SMTP server): a bad link,
 *   signed out, signed in with another account, then with the right one, which confirms it.
 * The app's clock is this file's `clock` (createTestContext's `now`): a code of the next 30-second
 * step is one the server has not taken yet, without waiting for real time to pass.
 * Each state is an accessibility gate (axe, no critical or serious violation) and is saved under
 * docs/screenshots/mfa/ for a person to look at.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { generateSync } from 'otplib';
import type { Page } from 'playwright-core';
import { createUser, type TestContext } from '../helpers/context';
import { describeBrowser, PHONE_VIEWPORT, settled, submitLogin, useBrowser } from '../helpers/browser';
import { eventually } from '../helpers/eventually';
import { saveFullPageShot } from '../helpers/screenshots';
import { expectAccessible } from '../helpers/a11y';
import { fakeSmtp, type FakeSmtp } from '../helpers/smtp';

const SHOTS = path.resolve(__dirname, '../../docs/screenshots/mfa');
const DESKTOP = { width: 1280, height: 900 };
const VIEWPORTS = [
  ['phone', PHONE_VIEWPORT],
  ['desktop', DESKTOP],
] as const;
const LISTED = VIEWPORTS.map(([label]) => `chefe.${label}@exemplo.com.br`);

/** The app's clock (ms): advanced by the test, never by waiting. */
let clock = Date.now();
/** The code an authenticator app shows at the app's clock (± `steps` 30-second steps). */
const totp = (secret: string, steps = 0) => generateSync({ secret, epoch: Math.floor(clock / 1000) + steps * 30 });
/** Moves the app's clock to the next step: the codes the server took before are behind it. */
const nextStep = () => void (clock += 30_000);
/** A 6-digit code no step the server accepts now (± one) gives. */
function wrongCode(secret: string): string {
  const near = new Set([-1, 0, 1].map((s) => totp(secret, s)));
  for (let n = 123456; ; n++) if (!near.has(String(n))) return String(n);
}

describeBrowser('two-factor sign-in and the admin e-mail confirmation in the browser', () => {
  let smtp: FakeSmtp;
  beforeAll(async () => {
    smtp = await fakeSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  const session = useBrowser({
    env: () => ({ ADMIN_MFA_REQUIRED: 'true', ADMIN_EMAILS: LISTED.join(','), SMTP_URL: smtp.url }),
    now: () => clock,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  let t: TestContext;
  let page: Page;
  beforeEach(() => ({ t, page } = session));

  const shot = (name: string) => saveFullPageShot(page, SHOTS, name, 300);
  const focusedAttr = (name: string) => page.evaluate((n) => (globalThis as any).document.activeElement?.getAttribute(n) ?? null, name);
  /** Waits for the focus to land on the element whose `name` attribute is `value`. */
  const focusOn = (name: string, value: string) =>
    eventually(async () => (await focusedAttr(name)) === value || null, `focus on [${name}=${value}]`);

  /** Sign-in through /login (the code step, if any, is the caller's). */
  async function passwordStep(email: string, password: string) {
    await page.goto(`${t.url}/login`);
    await page.getByRole('heading', { level: 1, name: 'Entrar' }).waitFor();
    await submitLogin(page, email, password);
  }

  /** 'Sair' of the top bar: inline on a desktop, in the menu on a phone. */
  async function signOut() {
    const menu = page.getByRole('button', { name: 'Abrir menu' });
    if (await menu.isVisible()) {
      await menu.click();
      await page.getByRole('menuitem', { name: /Sair/ }).click();
    } else {
      await page.getByRole('button', { name: /Sair/ }).click();
    }
    await eventually(() => page.evaluate(() => (globalThis as any).localStorage.getItem('ns_auth_token') === null), 'the session to end');
    await page.waitForURL(`${t.url}/`);
  }

  /** The enrolment on screen: checks the QR code and reads the secret typed under it. */
  async function readSecret(): Promise<string> {
    const qr = page.getByRole('img', { name: /QR code para adicionar a conta/ });
    await qr.waitFor();
    await expect(qr.getAttribute('src')).resolves.toMatch(/^data:image\/png;base64,/);
    const secret = ((await page.locator('.mfa-secret').textContent()) ?? '').replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    return secret;
  }

  /** The recovery codes shown after 'Ativar': ten `xxxxx-xxxxx`. */
  async function readRecoveryCodes(): Promise<string[]> {
    const list = page.getByRole('list', { name: 'Códigos de recuperação' });
    await list.waitFor();
    const codes = (await list.locator('li').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    for (const c of codes) expect(c).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    return codes;
  }

  for (const [label, viewport] of VIEWPORTS) {
    it(`an administrator enrols, saves the recovery codes and signs in with a code and with a recovery code (${label})`, async () => {
      await page.setViewportSize(viewport);
      const admin = await createUser(t, {
        admin: true,
        name: 'Ana Beatriz Admin',
        email: `ana.${label}.${randomBytes(2).toString('hex')}@cotaverde.com.br`,
      });

      // Signed in with the password alone, the console shows only the enrolment.
      await passwordStep(admin.email, admin.password);
      await page.waitForURL(`${t.url}/admin`);
      const title = page.getByRole('heading', { level: 1, name: 'Ative a verificação em duas etapas' });
      await title.waitFor();
      await expect(page.getByRole('navigation', { name: 'Páginas do painel' }).count()).resolves.toBe(0);
      // The screen took the place of the dashboard: the focus is on its title.
      await expect(
        eventually(
          async () => (await title.evaluate((el: unknown) => el === (globalThis as any).document.activeElement)) || null,
          'focus on the title',
        ),
      ).resolves.toBe(true);
      const secret = await readSecret();
      await shot(`mfa-console-enrol-${label}`);

      // A wrong code is said on the field; the right one turns it on.
      const code = page.getByLabel('Código do aplicativo');
      await expect(code.getAttribute('autocomplete')).resolves.toBe('one-time-code');
      await expect(code.getAttribute('inputmode')).resolves.toBe('numeric');
      await code.fill(wrongCode(secret));
      await page.getByRole('button', { name: 'Ativar' }).click();
      await page.getByRole('alert').filter({ hasText: 'Código inválido.' }).waitFor();
      await focusOn('autocomplete', 'one-time-code');
      await shot(`mfa-console-enrol-wrong-code-${label}`);
      await code.fill(totp(secret));
      await page.getByRole('button', { name: 'Ativar' }).click();

      const codes = await readRecoveryCodes();
      await focusOn('id', 'mfa-codes-title');
      const next = page.getByRole('button', { name: 'Continuar para o painel' });
      await expect(next.isDisabled()).resolves.toBe(true);
      await shot(`mfa-console-recovery-codes-${label}`);
      // 'Copiar' puts every code on the clipboard; 'Baixar .txt' saves them in a file.
      await page.getByRole('button', { name: 'Copiar', exact: true }).click();
      const copied: string = await eventually(
        () => page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>),
        'the codes on the clipboard',
      );
      for (const c of codes) expect(copied).toContain(c);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Baixar .txt' }).click()]);
      expect(download.suggestedFilename()).toBe('cota-verde-codigos-de-recuperacao.txt');
      const file = await download.path();
      const text = (await import('node:fs')).readFileSync(file, 'utf8');
      for (const c of codes) expect(text).toContain(c);
      expect(text).toContain(admin.email);

      await page.getByRole('checkbox', { name: 'Guardei os códigos' }).check();
      await next.click();
      await page.getByRole('heading', { name: 'Painel administrativo', exact: true }).waitFor();
      const me = await t.api('GET', '/api/me', { token: admin.token });
      // Turning it on ended the sessions opened with the password alone (the browser's stays).
      expect(me.status).toBe(401);

      // --- sign out, sign in with password and code (a wrong one first) ---
      await signOut();
      await passwordStep(admin.email, admin.password);
      await page.getByRole('heading', { level: 1, name: 'Verificação em duas etapas' }).waitFor();
      await focusOn('autocomplete', 'one-time-code');
      const loginCode = page.getByLabel('Código de 6 dígitos');
      await expect(loginCode.getAttribute('inputmode')).resolves.toBe('numeric');
      await shot(`mfa-login-code-${label}`);
      await loginCode.fill(wrongCode(secret));
      await page.locator('form[id="login-mfa"] button[type="submit"]').click();
      await page.getByRole('alert').filter({ hasText: 'Código inválido.' }).waitFor();
      await focusOn('autocomplete', 'one-time-code');
      await shot(`mfa-login-wrong-code-${label}`);
      nextStep();
      await loginCode.fill(totp(secret));
      await page.locator('form[id="login-mfa"] button[type="submit"]').click();
      await page.waitForURL(`${t.url}/admin`);
      await page.getByRole('heading', { name: 'Painel administrativo', exact: true }).waitFor();

      // --- 'Voltar' leads back to the password, then a recovery code signs in ---
      await signOut();
      await passwordStep(admin.email, admin.password);
      await page.getByRole('heading', { level: 1, name: 'Verificação em duas etapas' }).waitFor();
      await page.getByRole('button', { name: 'Voltar', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Entrar' }).waitFor();
      await focusOn('autocomplete', 'current-password');
      await page.locator('form[id="login"] button[type="submit"]').click();
      await page.getByRole('heading', { level: 1, name: 'Verificação em duas etapas' }).waitFor();
      await page.getByRole('button', { name: 'Usar um código de recuperação' }).click();
      const recovery = page.getByLabel('Código de recuperação');
      await recovery.waitFor();
      await focusOn('autocomplete', 'off');
      await recovery.fill(codes[3].toUpperCase());
      await shot(`mfa-login-recovery-${label}`);
      await page.locator('form[id="login-mfa"] button[type="submit"]').click();
      await page.waitForURL(`${t.url}/admin`);
      await page.getByRole('heading', { name: 'Painel administrativo', exact: true }).waitFor();
      await expect(t.services.db('mfa_recovery_codes').where({ user_id: admin.user.id }).whereNotNull('used_at')).resolves.toHaveLength(1);

      // A spent recovery code is refused like a wrong one; the app's code still signs in.
      await signOut();
      await passwordStep(admin.email, admin.password);
      await page.getByRole('button', { name: 'Usar um código de recuperação' }).click();
      await page.getByLabel('Código de recuperação').fill(codes[3]);
      await page.locator('form[id="login-mfa"] button[type="submit"]').click();
      await page.getByRole('alert').filter({ hasText: 'Código inválido.' }).waitFor();
      expect(page.url()).toBe(`${t.url}/login`);
      await page.getByRole('button', { name: 'Usar o código do aplicativo' }).click();
      nextStep();
      await page.getByLabel('Código de 6 dígitos').fill(totp(secret));
      await page.locator('form[id="login-mfa"] button[type="submit"]').click();
      await page.getByRole('heading', { name: 'Painel administrativo', exact: true }).waitFor();

      // Two factors gone behind the console's back (as after an operator's reset, here without
      // ending the session): the next admin call answers 403 mfa_enrollment_required and the
      // console turns into the enrolment screen, though GET /api/me was read before.
      await t.services.db('user_mfa').where({ user_id: admin.user.id }).del();
      if (label === 'phone') {
        await page.getByRole('button', { name: 'Menu do painel' }).click();
        // The drawer's side column asks the server as it opens (the last backup): that admin call
        // alone may answer 403 mfa_enrollment_required and turn the console into the enrolment
        // screen before the link can be clicked. Either way the enrolment screen must come.
        const enrol = page.getByRole('heading', { level: 1, name: 'Ative a verificação em duas etapas' });
        const click = page.locator('.admin-console-drawer').getByRole('link', { name: 'Auditoria' }).click();
        click.catch(() => {});
        await Promise.race([click, enrol.waitFor()]);
      } else {
        await page.locator('.admin-console-sider').getByRole('link', { name: 'Auditoria' }).click();
      }
      await page.getByRole('heading', { level: 1, name: 'Ative a verificação em duas etapas' }).waitFor();
      await readSecret();
    }, 420_000);

    it(`a customer turns two-factor sign-in on in /conta and off again (${label})`, async () => {
      await page.setViewportSize(viewport);
      const customer = await createUser(t, { name: 'Fernanda Gonçalves' });
      await passwordStep(customer.email, customer.password);
      await page.waitForURL(`${t.url}/`);
      await page.goto(`${t.url}/conta`);
      const card = page.locator('.security-card');
      await card.getByText('Desativada', { exact: true }).waitFor();
      await card.scrollIntoViewIfNeeded();
      await expectAccessible(page, `conta: segurança desativada (${label})`);

      await card.getByRole('button', { name: 'Ativar' }).click();
      const dialog = await settled(page.getByRole('dialog', { name: 'Ativar verificação em duas etapas' }));
      const secret = await readSecret();
      await shot(`mfa-account-enrol-${label}`);
      await dialog.getByLabel('Código do aplicativo').fill(totp(secret));
      await dialog.getByRole('button', { name: 'Ativar' }).click();
      await readRecoveryCodes();
      // The codes are on screen: the dialog no longer closes by itself.
      await expect(dialog.getByRole('button', { name: /Close|Fechar/ }).count()).resolves.toBe(0);
      await shot(`mfa-account-recovery-codes-${label}`);
      await dialog.getByRole('checkbox', { name: 'Guardei os códigos' }).check();
      await dialog.getByRole('button', { name: 'Concluir' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await card.getByText('Ativada', { exact: true }).waitFor();
      // The confirmation toast, then the card once it has faded away (axe reads a fading toast's
      // colours mid-animation).
      const toast = page.locator('.ant-message-notice').filter({ hasText: 'Verificação em duas etapas ativada.' });
      await toast.waitFor();
      await toast.waitFor({ state: 'detached', timeout: 15_000 });
      await card.scrollIntoViewIfNeeded();
      await shot(`mfa-account-on-${label}`);
      expect(await t.services.db('user_mfa').where({ user_id: customer.user.id }).whereNotNull('enabled_at').first()).toBeTruthy();

      // 'Desativar' asks for a code: a wrong one is refused, the next step's code turns it off.
      await card.getByRole('button', { name: 'Desativar' }).click();
      const off = await settled(page.getByRole('dialog', { name: 'Desativar verificação em duas etapas' }));
      await focusOn('autocomplete', 'one-time-code');
      await off.getByLabel('Código do aplicativo').fill(wrongCode(secret));
      await off.getByRole('button', { name: 'Desativar' }).click();
      await off.getByRole('alert').filter({ hasText: 'Código inválido.' }).waitFor();
      await shot(`mfa-account-disable-wrong-code-${label}`);
      nextStep();
      await off.getByLabel('Código do aplicativo').fill(totp(secret));
      await off.getByRole('button', { name: 'Desativar' }).click();
      await off.waitFor({ state: 'hidden' });
      await card.getByText('Desativada', { exact: true }).waitFor();
      const offToast = page.locator('.ant-message-notice').filter({ hasText: 'Verificação em duas etapas desativada.' });
      await offToast.waitFor();
      await offToast.waitFor({ state: 'detached', timeout: 15_000 });
      await expectAccessible(page, `conta: segurança desativada de novo (${label})`);
      expect(await t.services.db('user_mfa').where({ user_id: customer.user.id }).first()).toBeUndefined();
    }, 360_000);

    it(`the admin e-mail confirmation page: a bad link, signed out, another account, the right account (${label})`, async () => {
      await page.setViewportSize(viewport);
      const listed = LISTED[VIEWPORTS.findIndex(([l]) => l === label)];
      const owner = await createUser(t, { name: 'Carlos Eduardo Chefe', email: listed });
      const other = await createUser(t, { name: 'Outra Pessoa' });
      // Signing in with a listed, unproved address mails the proof link (through the fake SMTP server).
      expect((await t.api('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password } })).status).toBe(200);
      const row = await eventually(
        () => t.services.db('mail_outbox').where({ to_address: owner.email, template: 'admin_email_confirm' }).first(),
        'the proof mail',
      );
      if (row.status === 'pending') expect(await t.services.mailer.deliver(row.id)).toBe('sent');
      const mail = await eventually(async () => smtp.mails.find((m) => m.to.includes(owner.email)), 'the proof mail to arrive');
      const link = /http:\/\/cotaverde\.test(\/confirmar-email-admin\?token=[A-Za-z0-9_%-]+)/.exec(mail.text);
      expect(link).toBeTruthy();

      // A link that is not (or no longer) valid.
      await page.goto(`${t.url}/confirmar-email-admin?token=nao-e-um-token-valido`);
      await page.getByRole('heading', { level: 1, name: 'Não foi possível usar este link' }).waitFor();
      await page.getByText('Link de confirmação inválido ou expirado.', { exact: false }).waitFor();
      await shot(`admin-email-bad-link-${label}`);

      // Signed out: sign in with the link's address (the button prefills it and comes back).
      await page.goto(`${t.url}${link![1]}`);
      await page.getByRole('heading', { level: 1, name: 'Confirmar e-mail de administração' }).waitFor();
      await page.getByText(owner.email, { exact: true }).first().waitFor();
      await page.getByRole('button', { name: 'Entrar para confirmar' }).waitFor();
      await shot(`admin-email-signed-out-${label}`);

      // Signed in with another account: said, with the way to switch.
      await passwordStep(other.email, other.password);
      await page.waitForURL(`${t.url}/`);
      await page.goto(`${t.url}${link![1]}`);
      await page.getByText('Você entrou com outra conta').waitFor();
      await expect(page.getByRole('button', { name: 'Confirmar e-mail de administração' }).count()).resolves.toBe(0);
      await shot(`admin-email-wrong-account-${label}`);
      // The server refuses it too (403 wrong_account), whatever the page shows.
      const otherSession = await t.api('POST', '/api/auth/confirm-admin-email', {
        token: other.token,
        body: { token: new URLSearchParams(link![1].split('?')[1]).get('token') },
      });
      expect([otherSession.status, otherSession.body.error]).toEqual([403, 'wrong_account']);

      await page.getByRole('button', { name: 'Sair e trocar de conta' }).click();
      await page.waitForURL(`${t.url}/login`);
      await expect(page.getByLabel('E-mail').inputValue()).resolves.toBe(owner.email);
      await page.getByText(`Entre com a conta de ${owner.email} para confirmar o e-mail de administração.`).waitFor();
      await page.getByLabel('Senha').fill(owner.password);
      await page.locator('form[id="login"] button[type="submit"]').click();

      // Back on the page with the right account: the button proves the address.
      await page.waitForURL(`${t.url}${link![1]}`);
      const confirm = page.getByRole('button', { name: 'Confirmar e-mail de administração' });
      await confirm.waitFor();
      await shot(`admin-email-right-account-${label}`);
      await confirm.click();
      await page.getByRole('heading', { level: 1, name: 'E-mail de administração confirmado' }).waitFor();
      await shot(`admin-email-confirmed-${label}`);
      expect((await t.services.db('users').where({ id: owner.user.id }).first('admin_email_proved')).admin_email_proved).toBe(owner.email);

      // Now an administrator without two factors: the console asks for the enrolment first.
      await page.getByRole('link', { name: 'Ir para o painel' }).click();
      await page.getByRole('heading', { level: 1, name: 'Ative a verificação em duas etapas' }).waitFor();

      // The link was single use.
      await page.goto(`${t.url}${link![1]}`);
      await page.getByRole('heading', { level: 1, name: 'Não foi possível usar este link' }).waitFor();
    }, 240_000);
  }
});
