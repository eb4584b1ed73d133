import { createHmac } from 'node:crypto';
import type { Logger } from '../platform/logger';

/** What the partner store receives for one user: the balance as of one ledger version. */
export interface CouponPush {
  code: string;
  cents: number;
  valid_until: string | null;
  user_id: number;
}

export interface CouponPushAdapter {
  readonly name: 'none' | 'webhook';
  /** Delivers one balance; throws when every attempt failed (the next run tries again). */
  push(payload: CouponPush, idempotencyKey: string): Promise<void>;
}

/** No partner store: balances live only here. */
export const noneAdapter: CouponPushAdapter = {
  name: 'none',
  async push() {},
};

export const SIGNATURE_HEADER = 'x-cotaverde-signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the shared secret. */
export function signWebhook(secret: string, body: string, at = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${at}.${body}`).digest('hex');
  return `t=${at},v1=${v1}`;
}

export class WebhookError extends Error {
  constructor(
    message: string,
    public readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'WebhookError';
  }
}

/**
 * POSTs `{code, cents, valid_until, user_id}` as JSON to the partner's URL, signed
 * (X-Cotaverde-Signature) and with an Idempotency-Key that stays the same across
 * the retries of one ledger version. Retries network errors, timeouts, 408, 429
 * and 5xx with exponential backoff; other 4xx are final.
 */
export function createWebhookAdapter(o: {
  url: string;
  secret: string;
  logger: Logger;
  attempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
}): CouponPushAdapter {
  const attempts = o.attempts ?? 5;
  const baseDelayMs = o.baseDelayMs ?? 200;
  const timeoutMs = o.timeoutMs ?? 10_000;
  return {
    name: 'webhook',
    async push(payload, idempotencyKey) {
      const body = JSON.stringify(payload);
      let last: Error | null = null;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        try {
          const res = await fetch(o.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'idempotency-key': idempotencyKey,
              [SIGNATURE_HEADER]: signWebhook(o.secret, body),
              'user-agent': 'cotaverde-coupons/1',
            },
            body,
            signal: AbortSignal.timeout(timeoutMs),
          });
          await res.arrayBuffer().catch(() => undefined);
          if (res.ok) return;
          const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
          last = new WebhookError(`partner answered ${res.status}`, retryable);
          if (!retryable) break;
        } catch (e) {
          last = new WebhookError(`partner unreachable: ${(e as Error).message}`, true);
        }
        o.logger.warn({ userId: payload.user_id, attempt, idempotencyKey, err: last.message }, 'coupon push failed');
        if (attempt < attempts) await new Promise((r) => setTimeout(r, baseDelayMs * 2 ** (attempt - 1)));
      }
      throw last ?? new WebhookError('coupon push failed', true);
    },
  };
}
