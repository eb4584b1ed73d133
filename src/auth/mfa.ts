import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomInt } from 'node:crypto';
import { generateSecret, verify } from 'otplib';

/**
 * The pieces of two-factor sign-in that are not about the database (auth/service.ts uses them):
 * - TOTP (RFC 6238 through otplib): SHA-1, 30-second steps, 6 digits, one step of drift either
 *   way; the caller keeps the last accepted step and passes it as `afterStep` (replays refused).
 * - The secret at rest: AES-256-GCM under a key derived from APP_SECRET (HMAC-SHA256 with a
 *   purpose label), `v1.<iv>.<tag>.<ciphertext>` in base64url. A copy of the database alone
 *   gives no secret.
 * - Recovery codes: 10 random `xxxxx-xxxxx` codes (50 bits each) from an alphabet without the
 *   look-alike characters; kept as an HMAC-SHA256 under another APP_SECRET-derived key, so
 *   neither the database alone nor a brute force of unkeyed hashes yields one.
 */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
export const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Cota Verde';
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no i, l, o, 0, 1

export interface MfaCrypto {
  encrypt(secret: string): string;
  decrypt(stored: string): string;
  /** The stored form of a recovery code (normalized first: case, spaces and the dash do not matter). */
  recoveryHash(code: string): string;
}

export function createMfaCrypto(appSecret: string): MfaCrypto {
  const derive = (purpose: string) => createHmac('sha256', appSecret).update(purpose).digest();
  const encKey = derive('cotaverde:mfa-secret:v1');
  const codeKey = derive('cotaverde:mfa-recovery:v1');
  return {
    encrypt(secret) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', encKey, iv);
      const ct = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
      return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    decrypt(stored) {
      const [v, iv, tag, ct] = stored.split('.');
      if (v !== 'v1' || !iv || !tag || !ct) throw new Error('unknown MFA secret format');
      const d = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
    },
    recoveryHash(code) {
      return createHmac('sha256', codeKey).update(normalizeRecoveryCode(code)).digest('hex');
    },
  };
}

export const newTotpSecret = () => generateSecret({ length: 20 });

/** `otpauth://totp/Cota%20Verde:<email>?secret=…&issuer=Cota%20Verde` (the label's e-mail URI-encoded). */
export function otpauthUrl(email: string, secret: string): string {
  const issuer = encodeURIComponent(ISSUER);
  return `otpauth://totp/${issuer}:${encodeURIComponent(email)}?secret=${secret}&issuer=${issuer}`;
}

/** The time step a code is accepted at (now ± one step, later than `afterStep`), or null. */
export async function totpStep(secret: string, code: string, nowMs: number, afterStep: number | null): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const r = await verify({
    secret,
    token: code,
    epoch: Math.floor(nowMs / 1000),
    epochTolerance: TOTP_PERIOD_S,
    period: TOTP_PERIOD_S,
    digits: TOTP_DIGITS,
    algorithm: 'sha1',
    ...(afterStep != null ? { afterTimeStep: afterStep } : {}),
  });
  // TOTP's result carries the matched step (otplib types it together with HOTP's).
  return r.valid ? (r as unknown as { timeStep: number }).timeStep : null;
}

export function newRecoveryCodes(n = RECOVERY_CODE_COUNT): string[] {
  const part = () => Array.from({ length: 5 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  const codes = new Set<string>();
  while (codes.size < n) codes.add(`${part()}-${part()}`);
  return [...codes];
}

export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** A TOTP code (6 digits) or a recovery code (10 letters and digits, dash optional), once spaces are gone. */
export const isTotpShape = (code: string) => /^\d{6}$/.test(code);
export const isRecoveryShape = (code: string) => /^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(code);
