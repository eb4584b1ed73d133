import { z } from 'zod';
import { MESSAGES, MIN_PASSWORD, isAdult, isValidCpf, isValidEmail, isValidPhone, onlyDigits, parseIsoDate } from '../shared/validation';

// One zod schema per write request, with the spec's pt-BR messages.

/** A body that is not a JSON object (an array, a string…) still answers in pt-BR. */
const BODY = { error: 'Envie os dados como um objeto JSON.' } as const;

const email = (msg: string) =>
  z
    .string({ error: msg })
    .trim()
    .max(254, msg)
    .refine(isValidEmail, msg)
    .transform((v) => v.toLowerCase());

export const RegisterCommand = z.object(
  {
    name: z.string({ error: MESSAGES.nameRequired }).trim().min(1, MESSAGES.nameRequired).max(120, 'Nome muito longo.'),
    email: email(MESSAGES.emailInvalid),
    phone: z.string({ error: MESSAGES.phoneInvalid }).refine(isValidPhone, MESSAGES.phoneInvalid).transform(onlyDigits),
    cpf: z.string({ error: MESSAGES.cpfInvalid }).refine(isValidCpf, MESSAGES.cpfInvalid).transform(onlyDigits),
    birthdate: z
      .string({ error: MESSAGES.birthdateRequired })
      // abort: an impossible date is not also reported as "under 18"
      .refine((v) => parseIsoDate(v) !== null, { message: MESSAGES.birthdateRequired, abort: true })
      .refine((v) => isAdult(v), MESSAGES.underage),
    password: z
      .string({ error: MESSAGES.passwordRequired })
      .min(1, { message: MESSAGES.passwordRequired, abort: true })
      .min(MIN_PASSWORD, MESSAGES.passwordTooShort)
      .max(200, 'Senha muito longa.'),
    acceptTerms: z.literal(true, { error: MESSAGES.termsRequired }),
  },
  BODY,
);
export type RegisterCommand = z.infer<typeof RegisterCommand>;

export const LoginCommand = z.object(
  {
    email: email(MESSAGES.loginEmailInvalid),
    password: z.string({ error: MESSAGES.passwordTooShort }).min(MIN_PASSWORD, MESSAGES.passwordTooShort).max(200, 'Senha muito longa.'),
    remember: z.boolean().optional(),
  },
  BODY,
);

/** Any client-chosen password (the legacy client sends newPassword) is ignored. */
export const ResetRequestCommand = z.object({ email: email(MESSAGES.loginEmailInvalid) }, BODY);

export const ResetConfirmCommand = z.object(
  {
    token: z.string({ error: 'Link inválido ou expirado.' }).min(20, 'Link inválido ou expirado.').max(200, 'Link inválido ou expirado.'),
    password: z.string({ error: MESSAGES.passwordTooShort }).min(MIN_PASSWORD, MESSAGES.passwordTooShort).max(200, 'Senha muito longa.'),
  },
  BODY,
);

// ---- Two-factor sign-in (TOTP) ----
const TOTP_MESSAGE = 'Informe o código de 6 dígitos do aplicativo autenticador.';
const ANY_CODE_MESSAGE = 'Informe o código de 6 dígitos do aplicativo autenticador ou um código de recuperação.';
/** Spaces anywhere are ignored ("123 456", a pasted recovery code with a trailing space). */
const code = (message: string, ok: (v: string) => boolean) =>
  z
    .string({ error: message })
    .max(40, message)
    .transform((v) => v.replace(/\s+/g, ''))
    .refine(ok, message);

/** POST /api/auth/mfa/enable: only a code of the app proves the app has the secret. */
export const MfaEnableCommand = z.object({ code: code(TOTP_MESSAGE, (v) => /^\d{6}$/.test(v)) }, BODY);

/** POST /api/auth/mfa/disable: a code of the app or a recovery code. */
export const MfaCodeCommand = z.object(
  { code: code(ANY_CODE_MESSAGE, (v) => /^\d{6}$/.test(v) || /^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(v)) },
  BODY,
);

/** POST /api/auth/login/mfa. */
export const MfaLoginCommand = z.object(
  {
    mfa_token: z
      .string({ error: 'Verificação expirada. Entre de novo com e-mail e senha.' })
      .min(20, 'Verificação expirada. Entre de novo com e-mail e senha.')
      .max(200, 'Verificação expirada. Entre de novo com e-mail e senha.'),
    code: code(ANY_CODE_MESSAGE, (v) => /^\d{6}$/.test(v) || /^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(v)),
  },
  BODY,
);

/** POST /api/auth/confirm-admin-email. */
export const ConfirmAdminEmailCommand = z.object(
  {
    token: z
      .string({ error: 'Link de confirmação inválido ou expirado.' })
      .min(10, 'Link de confirmação inválido ou expirado.')
      .max(200, 'Link de confirmação inválido ou expirado.'),
  },
  BODY,
);
