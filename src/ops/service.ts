import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Job } from 'bullmq';
import type { Config } from '../platform/config';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { Redis } from '../platform/redis';
import { DomainError, errors } from '../platform/errors';
import { JOB_NAMES, type JobName, type JobQueue } from '../platform/queue';
import { isAdminRow } from '../auth/serializers';
import { adminAccessRefusal } from '../auth/access';
import type { OpsLink, QueueFailedJob, QueueJobTypeCounts, QueueStatus } from '../shared/api/ops';

/**
 * Operations: the signed, short-lived way into the queue dashboard (/ops), and the
 * queue counts and retries the CLI shows. The dashboard itself is @bull-board (ops/dashboard.ts).
 *
 * Tokens: `v1.<payload>.<HMAC-SHA256>` (base64url), keyed by a key derived from APP_SECRET, with a
 * purpose ('login' for the one-time link, 'session' for the /ops cookie), the user id and an
 * expiry. The user is read from the database on every use: a demoted admin is refused at once.
 */
export const OPS_LINK_TTL_S = 60;
export const OPS_SESSION_TTL_S = 30 * 60;
export const OPS_COOKIE = 'cv_ops';

type Purpose = 'login' | 'session';
interface Claims {
  p: Purpose;
  u: number;
  /** Expiry, unix seconds. */
  e: number;
  /** Nonce (the login link is single-use). */
  n: string;
}

export interface OpsUser {
  id: number;
  email: string;
  name: string;
  isAdmin: boolean;
  mfaEnabled: boolean;
}

export type SessionCheck =
  | { ok: true; user: OpsUser }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired' | 'unknown_user' | 'ended' }
  /** Refused by the admin access rule (auth/access.ts): not an admin, or two factors required and off. */
  | { ok: false; reason: 'not_admin'; user: OpsUser; refusal: DomainError };

export interface OpsService {
  /** A one-time link to /ops/login for this admin (the route checks the admin first). */
  issueLink(adminId: number, now?: number): OpsLink;
  /** Redeems a login link: a session cookie value for the (still admin) user, or a 401/403 DomainError. */
  redeemLogin(token: string | undefined, now?: number): Promise<{ cookie: string; user: OpsUser; maxAgeS: number }>;
  /** Checks the /ops cookie and reads its user from the database. */
  checkSession(cookie: string | undefined, now?: number): Promise<SessionCheck>;
  /** Logout: ends the session of this cookie on the server (its nonce is revoked until it would expire). */
  endSession(cookie: string | undefined, now?: number): Promise<void>;
  /** Counts per job type and the failed jobs with their last error. */
  queueStatus(opts?: { failedLimit?: number }): Promise<QueueStatus>;
  /**
   * Re-runs a job type now: its failed jobs (retried with their attempts reset) and, unless
   * `failedOnly`, its delayed jobs too (those waiting for a backoff or their time) are promoted.
   */
  retry(name: string, opts?: { failedOnly?: boolean }): Promise<{ name: string; retried: number; promoted: number }>;
}

export class UnknownJobTypeError extends Error {
  constructor(name: string) {
    super(`tipo de job desconhecido: '${name}' (tipos: ${JOB_NAMES.join(', ')})`);
    this.name = 'UnknownJobTypeError';
  }
}

export function createOpsService(deps: {
  db: Db;
  config: Pick<Config, 'appSecret' | 'publicUrl' | 'adminEmails' | 'adminMfaRequired'>;
  queue: JobQueue;
  redis: Redis;
  prefix: string;
  logger: Logger;
}): OpsService {
  const key = createHmac('sha256', deps.config.appSecret).update('cotaverde:ops-dashboard:v1').digest();
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

  function sign(c: Claims): string {
    const payload = Buffer.from(JSON.stringify(c)).toString('base64url');
    return `v1.${payload}.${mac(payload)}`;
  }

  function verify(
    token: string | undefined,
    purpose: Purpose,
    now: number,
  ): { claims: Claims } | { error: 'missing' | 'invalid' | 'expired' } {
    if (!token) return { error: 'missing' };
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== 'v1' || token.length > 1000) return { error: 'invalid' };
    const [, payload, sig] = parts;
    const want = Buffer.from(mac(payload));
    const got = Buffer.from(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return { error: 'invalid' };
    let c: Claims;
    try {
      c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
    } catch {
      return { error: 'invalid' };
    }
    if (c.p !== purpose || !Number.isSafeInteger(c.u) || c.u <= 0 || !Number.isFinite(c.e)) return { error: 'invalid' };
    if (c.e * 1000 <= now) return { error: 'expired' };
    return { claims: c };
  }

  async function loadUser(id: number): Promise<OpsUser | null> {
    const row = await deps
      .db('users as u')
      .leftJoin('user_mfa as m', 'm.user_id', 'u.id')
      .where('u.id', id)
      .first('u.id', 'u.email', 'u.name', 'u.role', 'u.is_admin', 'u.admin_email_proved', 'm.enabled_at as mfa_enabled_at');
    if (!row) return null;
    return {
      id: row.id,
      email: row.email,
      name: row.name,
      isAdmin: isAdminRow(row, deps.config.adminEmails),
      mfaEnabled: row.mfa_enabled_at != null,
    };
  }

  function jobText(j: Job): QueueFailedJob {
    return {
      id: String(j.id),
      name: j.name,
      attempts: j.attemptsMade,
      failed_at: j.finishedOn ? new Date(j.finishedOn).toISOString() : null,
      error: j.failedReason ?? '',
    };
  }

  const raw = deps.queue.raw;
  const revokedKey = (nonce: string) => `${deps.prefix}:ops:ended:${nonce}`;

  return {
    issueLink(adminId, now = Date.now()) {
      const e = Math.floor(now / 1000) + OPS_LINK_TTL_S;
      const token = sign({ p: 'login', u: adminId, e, n: randomBytes(12).toString('base64url') });
      deps.logger.info({ userId: adminId }, 'ops dashboard link issued');
      return {
        url: `${deps.config.publicUrl.replace(/\/+$/, '')}/ops/login?token=${encodeURIComponent(token)}`,
        expires_at: new Date(e * 1000).toISOString(),
      };
    },

    async redeemLogin(token, now = Date.now()) {
      const v = verify(token, 'login', now);
      if ('error' in v) {
        throw errors.unauthenticated(
          v.error === 'expired'
            ? 'Link expirado. Gere outro no console de administração.'
            : 'Link inválido. Gere outro no console de administração.',
        );
      }
      // One use per link: a copied (or logged) address cannot open a second session.
      let first: string | null;
      try {
        first = await deps.redis.set(`${deps.prefix}:ops:login:${v.claims.n}`, '1', 'EX', OPS_LINK_TTL_S * 2, 'NX');
      } catch {
        throw new DomainError('unavailable', 'unavailable', 'Redis indisponível: o painel de filas não pode ser aberto agora.');
      }
      if (first !== 'OK') throw errors.unauthenticated('Este link já foi usado. Gere outro no console de administração.');
      const user = await loadUser(v.claims.u);
      if (!user) throw errors.unauthenticated('Link inválido. Gere outro no console de administração.');
      const refusal = adminAccessRefusal(user, deps.config);
      if (refusal) throw refusal;
      const e = Math.floor(now / 1000) + OPS_SESSION_TTL_S;
      deps.logger.info({ userId: user.id }, 'ops dashboard session opened');
      return { cookie: sign({ p: 'session', u: user.id, e, n: randomBytes(9).toString('base64url') }), user, maxAgeS: OPS_SESSION_TTL_S };
    },

    async checkSession(cookie, now = Date.now()) {
      const v = verify(cookie, 'session', now);
      if ('error' in v) return { ok: false, reason: v.error };
      // Ended by /ops/logout: a copy of the cookie opens nothing any more. Fails closed without Redis.
      let ended: number;
      try {
        ended = await deps.redis.exists(revokedKey(v.claims.n));
      } catch {
        throw new DomainError('unavailable', 'unavailable', 'Redis indisponível: o painel de filas não pode ser aberto agora.');
      }
      if (ended) return { ok: false, reason: 'ended' };
      const user = await loadUser(v.claims.u);
      if (!user) return { ok: false, reason: 'unknown_user' };
      const refusal = adminAccessRefusal(user, deps.config);
      if (refusal) return { ok: false, reason: 'not_admin', user, refusal };
      return { ok: true, user };
    },

    async endSession(cookie, now = Date.now()) {
      const v = verify(cookie, 'session', now);
      if ('error' in v) return;
      const ttl = Math.max(1, Math.ceil(v.claims.e - now / 1000));
      await deps.redis.set(revokedKey(v.claims.n), '1', 'EX', ttl);
      deps.logger.info({ userId: v.claims.u }, 'ops dashboard session ended');
    },

    async queueStatus(opts = {}) {
      const states = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
      const types = new Map<string, QueueJobTypeCounts>(
        JOB_NAMES.map((n) => [n, { name: n, waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 }]),
      );
      // BullMQ counts per state, not per name: read the job names of each state (the queues are
      // small; finished jobs are trimmed by their retention policy).
      for (const state of states) {
        const jobs = await raw.getJobs(state === 'waiting' ? ['waiting', 'prioritized', 'waiting-children'] : [state], 0, -1);
        for (const j of jobs) {
          if (!j) continue;
          const row = types.get(j.name) ?? { name: j.name, waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 };
          row[state]++;
          types.set(j.name, row);
        }
      }
      const failedJobs = (await raw.getFailed(0, Math.max(0, (opts.failedLimit ?? 50) - 1))).filter(Boolean);
      return { types: [...types.values()], failed: failedJobs.map(jobText) };
    },

    async retry(name, opts = {}) {
      if (!(JOB_NAMES as readonly string[]).includes(name)) throw new UnknownJobTypeError(name);
      let retried = 0;
      for (const j of await raw.getJobs(['failed'], 0, -1)) {
        if (!j || j.name !== (name as JobName)) continue;
        // A job removed or retried meanwhile (another operator, its retention) is skipped.
        if (
          await j.retry('failed', { resetAttemptsMade: true }).then(
            () => true,
            () => false,
          )
        )
          retried++;
      }
      let promoted = 0;
      if (!opts.failedOnly) {
        for (const j of await raw.getJobs(['delayed'], 0, -1)) {
          if (!j || j.name !== (name as JobName)) continue;
          if (
            await j.promote().then(
              () => true,
              () => false,
            )
          )
            promoted++;
        }
      }
      deps.logger.info({ name, retried, promoted }, 'jobs retried');
      return { name, retried, promoted };
    },
  };
}
