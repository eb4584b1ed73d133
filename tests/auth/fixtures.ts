import type { TestContext } from '../helpers/context';
import type { FakeSmtp } from '../helpers/smtp';
import { calendarDateInBrazil } from '../../src/shared/validation';
import { uniqueCpf } from '../helpers/cpf';

let ipSeq = 0;
/**
 * A fresh client address per call. The test app trusts X-Forwarded-For, so
 * each test can stay clear of the rate limits other tests spend.
 */
export function freshIp(): { 'x-forwarded-for': string } {
  ipSeq++;
  return { 'x-forwarded-for': `10.${(process.pid >> 8) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}` };
}

let emailSeq = 0;
export function uniqueEmail(prefix = 'pessoa'): string {
  emailSeq++;
  return `${prefix}${emailSeq}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** A registration body that passes every rule. */
export function registration(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Maria da Silva',
    email: uniqueEmail(),
    phone: '(41) 99999-0000',
    cpf: uniqueCpf(),
    birthdate: '1990-01-15',
    password: 'senha-forte-1',
    acceptTerms: true,
    ...overrides,
  };
}

/** The message of every rule for an empty registration form (account spec §3), by field. */
export const EMPTY_REGISTRATION_MESSAGES = {
  name: 'Informe seu nome completo.',
  email: 'E-mail inválido.',
  phone: 'Informe um telefone válido com DDD.',
  cpf: 'CPF inválido.',
  birthdate: 'Informe a data de nascimento.',
  password: 'Informe uma senha.',
  acceptTerms: 'É necessário aceitar os termos.',
};

/**
 * The user as the API shows it (register, login, /api/me): exactly these fields, never the
 * password hash. Accounts of the fixtures are customers born on 1990-01-15.
 */
export function publicUser(fields: { id: unknown; name: string; email: string; phone: string; cpf: string }) {
  return {
    ...fields,
    birthdate: '1990-01-15',
    role: 'customer',
    is_admin: false,
    coupon_code: null,
    created_at: expect.any(String),
  };
}

/** The birthdate of someone who turns `years` today (+ `days`) on the São Paulo calendar. */
export function birthdateYearsAgo(years: number, days = 0): string {
  const t = calendarDateInBrazil();
  // A 29 February "today" has no match `years` earlier; the 28th keeps the same age.
  const day = t.m === 2 && t.d === 29 ? 28 : t.d;
  const dt = new Date(Date.UTC(t.y - years, t.m - 1, day + days));
  return dt.toISOString().slice(0, 10);
}

/** The token of a reset link in a mail body. */
export function resetTokenFrom(body: string): string {
  const m = /http:\/\/cotaverde\.test\/redefinir-senha\?token=([A-Za-z0-9_-]+)/.exec(body);
  if (!m) throw new Error(`no reset link in:\n${body}`);
  return m[1];
}

/**
 * Requests a reset link for the address (from a fresh IP), delivers its mail through the context's
 * SMTP server (the link exists only in the mail that leaves) and returns the token of the link.
 */
export async function resetTokenOf(t: TestContext, smtp: FakeSmtp, email: string): Promise<string> {
  const to = email.trim().toLowerCase();
  const r = await t.api('POST', '/api/auth/reset-password', { body: { email }, headers: freshIp() });
  if (r.status !== 202) throw new Error(`reset request answered ${r.status}: ${r.text}`);
  const row = await t.services.db('mail_outbox').where({ to_address: to }).orderBy('id', 'desc').first();
  const outcome = await t.services.mailer.deliver(row.id);
  if (outcome !== 'sent') throw new Error(`reset mail ${row.id} was ${outcome}, not sent`);
  const sent = smtp.mails.filter((m) => m.to.includes(to));
  return resetTokenFrom(sent[sent.length - 1].text);
}
