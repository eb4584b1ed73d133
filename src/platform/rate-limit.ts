import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { errors } from './errors';

/**
 * Named limits: points per duration (seconds), keyed by the caller's IP and/or account. Sign-in
 * counts failures only (a success refunds its point): per IP (`login`) and per (e-mail, IP)
 * (`loginAccount`), so an attacker rotating addresses never locks the owner out of their account.
 */
export const LIMITS = {
  login: { points: 20, duration: 15 * 60 },
  loginAccount: { points: 5, duration: 15 * 60 },
  register: { points: 5, duration: 60 * 60 },
  reset: { points: 5, duration: 60 * 60 },
  resetEmail: { points: 3, duration: 60 * 60 },
  resetConfirm: { points: 10, duration: 15 * 60 },
  /** Wrong two-factor codes per signed-in account when turning two factors on or off. */
  mfaCode: { points: 5, duration: 15 * 60 },
  reservations: { points: 60, duration: 60 },
  /** New PIX charges per user (a reused pending charge does not count). */
  pix: { points: 10, duration: 10 * 60 },
} as const;
export type LimitName = keyof typeof LIMITS;

export interface RateLimits {
  /** Consumes one point; throws a rate_limited DomainError when exhausted. */
  hit(name: LimitName, key: string): Promise<void>;
  /** Gives back one point consumed by `hit` (e.g. a sign-in that turned out right). Best effort. */
  refund(name: LimitName, key: string): Promise<void>;
  reset(name: LimitName, key: string): Promise<void>;
}

export function createRateLimits(redis: Redis, prefix: string, disabled = false): RateLimits {
  const limiters = Object.fromEntries(
    Object.entries(LIMITS).map(([name, l]) => [
      name,
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:rl:${name}`,
        points: l.points,
        duration: l.duration,
        // Redis down must not hang sign-in: the connection gives up quickly (see
        // createRedis 'fail-fast') and a per-process limiter takes over.
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${prefix}:rl:${name}`, points: l.points, duration: l.duration }),
      }),
    ]),
  ) as Record<LimitName, RateLimiterRedis>;
  return {
    async hit(name, key) {
      if (disabled) return;
      try {
        await limiters[name].consume(key);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw errors.rateLimited(Math.ceil(e.msBeforeNext / 1000));
        throw e;
      }
    },
    async refund(name, key) {
      if (disabled) return;
      await limiters[name].reward(key, 1).catch(() => undefined);
    },
    async reset(name, key) {
      await limiters[name].delete(key).catch(() => false);
    },
  };
}
