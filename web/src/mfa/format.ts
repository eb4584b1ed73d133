/** Text of two-factor sign-in screens (pure: unit-tested in tests/web/mfa.test.ts). */

/** The secret in groups of four, easier to type into an app by hand. */
export const groupedSecret = (secret: string): string =>
  secret
    .replace(/\s+/g, '')
    .match(/.{1,4}/g)
    ?.join(' ') ?? secret;

export const RECOVERY_FILENAME = 'cota-verde-codigos-de-recuperacao.txt';

/** The text of the .txt file (and of the clipboard): what the codes are for, then one code a line. */
export function recoveryCodesText(codes: string[], account?: string): string {
  return [
    'Cota Verde: códigos de recuperação da verificação em duas etapas',
    ...(account ? [`Conta: ${account}`] : []),
    'Cada código vale uma única vez. Use um deles para entrar se perder o acesso ao aplicativo autenticador.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/** The digits of a typed one-time code ('123 456' → '123456'). */
export const totpDigits = (v: string | undefined): string => (v ?? '').replace(/\D/g, '');

/** A typed recovery code without spaces, lowercased ('ABCD-EFGH ' → 'abcd-efgh'). */
export const recoveryCode = (v: string | undefined): string => (v ?? '').replace(/\s+/g, '').toLowerCase();

export const MFA_MESSAGES = {
  totpRequired: 'Digite o código de 6 dígitos do aplicativo autenticador.',
  recoveryRequired: 'Digite um dos seus códigos de recuperação.',
  invalidCode: 'Código inválido.',
} as const;

/** Form rule of the 6-digit code (spaces allowed while typing). */
export const totpRule = {
  validator: (_: unknown, v: string | undefined) =>
    totpDigits(v).length === 6 ? Promise.resolve() : Promise.reject(new Error(MFA_MESSAGES.totpRequired)),
};

/** Form rule of a recovery code: something typed, of a sensible length. */
export const recoveryRule = {
  validator: (_: unknown, v: string | undefined) => {
    const c = recoveryCode(v);
    return c.length >= 6 && c.length <= 64 ? Promise.resolve() : Promise.reject(new Error(MFA_MESSAGES.recoveryRequired));
  },
};
