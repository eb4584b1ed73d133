// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- import.meta.env's types for the web files under test (a type-only reference, nothing to import)
/// <reference path="../../web/src/vite-env.d.ts" />
/**
 * The pure parts of the two-factor sign-in screens: the profile's mfa fields, the first step's
 * answer, how typed codes are cleaned before they are sent, the field rules, the secret's grouping
 * and the recovery codes file. (The screens themselves, and the console's reaction to a 403
 * mfa_enrollment_required, are driven in a browser: tests/e2e/mfa.e2e.test.ts.)
 */
import * as mfa from '../../web/src/mfa/format';
import { groupedSecret, recoveryCodesText } from '../../web/src/mfa/format';
import { mfaTokenOf, toUser } from '../../web/src/auth/user';

const profile = { id: 7, email: 'ana@example.com', name: 'Ana' };

describe('toUser: two-factor fields of GET /api/me', () => {
  test('read when the server sends them as true', () => {
    expect(toUser({ user: { ...profile, mfa_enabled: true, mfa_enrollment_required: true } })).toMatchObject({
      mfa_enabled: true,
      mfa_enrollment_required: true,
    });
  });
  test('false when absent or not a boolean true (an older server, a string)', () => {
    expect(toUser({ user: profile })).toMatchObject({ mfa_enabled: false, mfa_enrollment_required: false });
    expect(toUser({ user: { ...profile, mfa_enabled: 'true', mfa_enrollment_required: 1 } })).toMatchObject({
      mfa_enabled: false,
      mfa_enrollment_required: false,
    });
  });
});

describe('mfaTokenOf: the first step of a two-factor sign-in', () => {
  test('the token of {mfa_required: true, mfa_token}', () => {
    expect(mfaTokenOf({ mfa_required: true, mfa_token: 'abc123' })).toBe('abc123');
  });
  test('null for a normal sign-in answer and for malformed ones', () => {
    expect(mfaTokenOf({ token: 't', user: profile })).toBeNull();
    expect(mfaTokenOf({ mfa_required: false, mfa_token: 'abc' })).toBeNull();
    expect(mfaTokenOf({ mfa_required: true })).toBeNull();
    expect(mfaTokenOf({ mfa_required: true, mfa_token: '  ' })).toBeNull();
    expect(mfaTokenOf(null)).toBeNull();
    expect(mfaTokenOf('mfa')).toBeNull();
  });
});

describe('typed codes', () => {
  test.each([
    ['123456', '123456'],
    ['123 456', '123456'],
    [' 12-34 56 ', '123456'],
    [undefined, ''],
  ])('totpDigits(%p) → %p', (typed, sent) => expect(mfa.totpDigits(typed)).toBe(sent));

  test.each([
    ['abcde-fghjk', 'abcde-fghjk'],
    [' ABCDE-FGHJK ', 'abcde-fghjk'],
    ['abcde fghjk', 'abcdefghjk'],
    [undefined, ''],
  ])('recoveryCode(%p) → %p', (typed, sent) => expect(mfa.recoveryCode(typed)).toBe(sent));

  test('the field rules: six digits; a recovery code of a sensible length', async () => {
    await expect(mfa.totpRule.validator(null, '123 456')).resolves.toBeUndefined();
    await expect(mfa.totpRule.validator(null, '12345')).rejects.toThrow(mfa.MFA_MESSAGES.totpRequired);
    await expect(mfa.totpRule.validator(null, undefined)).rejects.toThrow(mfa.MFA_MESSAGES.totpRequired);
    await expect(mfa.recoveryRule.validator(null, 'abcde-fghjk')).resolves.toBeUndefined();
    await expect(mfa.recoveryRule.validator(null, 'abc')).rejects.toThrow(mfa.MFA_MESSAGES.recoveryRequired);
    await expect(mfa.recoveryRule.validator(null, 'a'.repeat(65))).rejects.toThrow(mfa.MFA_MESSAGES.recoveryRequired);
  });
});

describe('the secret and the recovery codes file', () => {
  test('the secret in groups of four (spaces the server may send are ignored)', () => {
    expect(groupedSecret('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    expect(groupedSecret('ABCDE F')).toBe('ABCD EF');
    expect(groupedSecret('')).toBe('');
  });
  test('the file names the account and lists one code a line', () => {
    const text = recoveryCodesText(['aaaaa-bbbbb', 'ccccc-ddddd'], 'ana@example.com');
    const lines = text.split('\n');
    expect(lines[0]).toBe('Cota Verde: códigos de recuperação da verificação em duas etapas');
    expect(lines).toContain('Conta: ana@example.com');
    expect(lines.slice(-3)).toEqual(['aaaaa-bbbbb', 'ccccc-ddddd', '']);
    expect(recoveryCodesText(['x'])).not.toMatch(/Conta:/);
  });
});
