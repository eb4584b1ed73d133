import argon2 from 'argon2';
import { createHash, randomBytes } from 'node:crypto';

/** argon2id with OWASP's minimum profile (19 MiB, t=2, p=1). */
const HASH_OPTS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => argon2.hash(password, HASH_OPTS);
export const verifyPassword = (hash: string, password: string) => argon2.verify(hash, password);
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
/** A single-use token (session, reset link, sign-in step): only its SHA-256 is stored. */
export const newToken = () => randomBytes(32).toString('base64url');
