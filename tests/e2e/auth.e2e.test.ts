/**
 * Browser test of the foundation screens: sign-up, sign-in, the customer menu, sign-out and the
 * legal pages, on a phone-sized screen, against the real API serving the built SPA (web/dist).
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { TestContext } from '../helpers/context';
import { describeBrowser, settled, submitLogin, useBrowser } from '../helpers/browser';
import { uniqueCpf } from '../helpers/cpf';
import { eventually } from '../helpers/eventually';
import { AA_TEXT } from '../helpers/contrast';
import { paintedColours, paintedContrast, saveScreenshot } from '../helpers/screenshots';

describeBrowser('sign-up, sign-in and legal pages in the browser', () => {
  const session = useBrowser();
  let t: TestContext;
  let page: Page;
  // The hooks of useBrowser fill the session in; each test reads its own page.
  beforeEach(() => ({ t, page } = session));

  /** The session token the SPA keeps in the browser (storefront spec §4: key ns_auth_token). */
  function storedToken() {
    // Runs in the page; written as a string because this file is compiled without DOM types.
    return page.evaluate<string | null>('window.localStorage.getItem("ns_auth_token")');
  }

  /** The top bar collapses its menu into a button on phones; wait for it to finish opening. */
  async function openMenu() {
    await page.getByRole('button', { name: 'Abrir menu' }).click();
    await settled(page.locator('.ant-dropdown').filter({ has: page.getByRole('menu') }));
  }

  it('registers a customer, signs in, sees the customer menu and signs out', async () => {
    const id = randomBytes(4).toString('hex');
    const email = `E2E.Maria.${id}@Example.com`;
    const password = 'senha-e2e-123';
    const cpf = uniqueCpf();

    // --- sign-up ---
    await page.goto(`${t.url}/cadastro`);
    await page.getByRole('heading', { name: 'Criar conta' }).waitFor();
    const submit = page.locator('form[id="register"] button[type="submit"]');
    await expect(submit.isDisabled()).resolves.toBe(true);

    await page.getByLabel('Nome completo').fill('Maria E2E da Silva');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Celular com DDD').fill('41998765432');
    await expect(page.getByLabel('Celular com DDD').inputValue()).resolves.toBe('(41) 99876-5432');
    await page.getByLabel('CPF').fill(cpf);
    await expect(page.getByLabel('CPF').inputValue()).resolves.toBe(
      `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`,
    );
    // Typed on a numeric keyboard (no calendar): the slashes come by themselves.
    const birthdate = page.getByLabel('Data de nascimento');
    await expect(birthdate.getAttribute('inputmode')).resolves.toBe('numeric');
    await birthdate.pressSequentially('1505');
    await expect(birthdate.inputValue()).resolves.toBe('15/05');
    await birthdate.blur();
    await page.getByText('Data de nascimento inválida. Use DD/MM/AAAA.', { exact: true }).waitFor();
    await birthdate.fill('');
    await birthdate.pressSequentially('15052010');
    await expect(birthdate.inputValue()).resolves.toBe('15/05/2010');
    await birthdate.blur();
    await page.getByText('É necessário ter 18 anos ou mais.', { exact: true }).waitFor();
    await birthdate.fill('');
    await birthdate.pressSequentially('15051990');
    await expect(birthdate.inputValue()).resolves.toBe('15/05/1990');
    // antd animates the previous message out: wait for it to leave rather than reading at once.
    await page.getByText('É necessário ter 18 anos ou mais.', { exact: true }).waitFor({ state: 'detached', timeout: 10_000 });
    await expect(page.locator('.ant-picker-dropdown').count()).resolves.toBe(0);
    await birthdate.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'cadastro-birthdate-typed');
    await page.getByLabel('Senha').fill(password);
    // Still disabled: the terms are not accepted yet.
    await expect(submit.isDisabled()).resolves.toBe(true);

    // Accepting inside the Terms dialog ticks the box.
    await page.locator('form').getByRole('link', { name: 'Termos de Uso' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: /Foro/ }).waitFor();
    // Click only once the dialog has finished opening (a click during antd's zoom-in can be lost).
    await settled(dialog);
    await dialog.getByRole('button', { name: 'Li e aceito' }).click();
    // The box and the submit button update after the dialog closes: wait for them, don't sample.
    await expect(eventually(() => page.getByRole('checkbox', { name: /Li e aceito/ }).isChecked(), 'terms box ticked')).resolves.toBe(true);
    await expect(eventually(() => submit.isEnabled(), 'submit enabled')).resolves.toBe(true);
    await submit.click();

    await page.waitForURL(`${t.url}/login`);
    await page.getByText('Conta criada com sucesso! Agora faça login.').waitFor();

    // The server stored the normalised payload.
    const row = await t.services.db('users').where({ email: email.toLowerCase() }).first();
    expect(row).toBeTruthy();
    expect(row.name).toBe('Maria E2E da Silva');
    expect(row.phone).toBe('41998765432');
    expect(row.cpf).toBe(cpf);
    // The server received the date as before (YYYY-MM-DD).
    expect(row.birthdate).toBe('1990-05-15');

    // --- sign-in ---
    await page.getByRole('heading', { level: 1, name: 'Entrar' }).waitFor();
    await expect(page.getByLabel('E-mail').inputValue()).resolves.toBe(email.toLowerCase());
    await page.getByLabel('Senha').fill(password);
    await page.locator('form[id="login"] button[type="submit"]').click();
    await page.waitForURL(`${t.url}/`);
    await expect(storedToken()).resolves.toBeTruthy();

    await openMenu();
    const customerArea = page.getByRole('menuitem', { name: /Área do cliente/ });
    await customerArea.waitFor();
    await expect(page.getByRole('menuitem', { name: /Sair/ }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('menuitem', { name: /Painel Admin/ }).count()).resolves.toBe(0);

    // The customer area shows the registration data from GET /api/me.
    await customerArea.click();
    await page.waitForURL(`${t.url}/conta`);
    await page.getByRole('heading', { name: 'Olá, Maria!' }).waitFor();
    await expect(page.getByText(email.toLowerCase()).isVisible()).resolves.toBe(true);
    await expect(page.getByText('(41) 99876-5432').isVisible()).resolves.toBe(true);

    // --- sign-out ---
    await openMenu();
    await page.getByRole('menuitem', { name: /Sair/ }).click();
    await page.waitForURL(`${t.url}/`);
    await openMenu();
    await page.getByRole('menuitem', { name: /Entrar/ }).waitFor();
    await expect(page.getByRole('menuitem', { name: /Sair/ }).count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();

    // Signed out, the customer area sends the visitor to the sign-in page.
    await page.goto(`${t.url}/conta`);
    await page.waitForURL(`${t.url}/login`);
  }, 120_000);

  it('shows an amber focus ring on a button reached with the keyboard, and AA text on primary buttons', async () => {
    await page.goto(`${t.url}/login`);
    await page.getByLabel('E-mail').fill('maria@example.com');
    await page.getByLabel('Senha').fill('senha-segura-1');
    const submit = page.locator('form[id="login"] button[type="submit"]');
    // Tab along until the sign-in button has the focus.
    for (let i = 0; i < 10 && !(await submit.evaluate((el: unknown) => el === (globalThis as any).document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await expect(submit.evaluate((el: unknown) => el === (globalThis as any).document.activeElement)).resolves.toBe(true);
    const ring = await paintedColours(submit);
    expect(ring).toMatchObject({ outlineStyle: 'solid', outlineWidth: '2px', outlineColor: 'rgb(245, 166, 35)' });
    await expect(paintedContrast(submit)).resolves.toBeGreaterThanOrEqual(AA_TEXT);
    await saveScreenshot(page, 'focused-button');
  }, 60_000);

  it('rejects a wrong password with the server message', async () => {
    await page.goto(`${t.url}/login`);
    await submitLogin(page, `ninguem-${randomBytes(3).toString('hex')}@example.com`, 'senha-errada');
    await page.getByRole('alert').filter({ hasText: 'E-mail ou senha incorretos.' }).waitFor();
    expect(page.url()).toBe(`${t.url}/login`);
  }, 60_000);

  it('opens the terms, privacy and responsible-gaming pages', async () => {
    await page.goto(`${t.url}/termos`);
    await page.getByRole('heading', { level: 1, name: 'Termos de Uso' }).waitFor();
    await expect(page.locator('.legal-section').count()).resolves.toBe(10);
    await expect(page.getByRole('heading', { name: /Foro/ }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: /Voltar/ }).isVisible()).resolves.toBe(true);

    await page.goto(`${t.url}/privacidade`);
    await page.getByRole('heading', { level: 1, name: 'Política de Privacidade' }).waitFor();
    await expect(page.locator('.legal-section').count()).resolves.toBe(9);
    await expect(page.getByText(/5 \(cinco\) anos/).isVisible()).resolves.toBe(true);

    await page.goto(`${t.url}/jogo-responsavel`);
    await page.getByRole('heading', { level: 1, name: 'Jogo Responsável' }).waitFor();
    await expect(page.getByText('Aviso Importante').isVisible()).resolves.toBe(true);
    await expect(page.locator('.legal-header .badge-18').textContent()).resolves.toBe('18+');

    // Addresses the app does not know fall to the not-found page.
    await page.goto(`${t.url}/pagina-que-nao-existe`);
    await page.getByRole('heading', { name: 'Página não encontrada' }).waitFor();
  }, 60_000);
});
