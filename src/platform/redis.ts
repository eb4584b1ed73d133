import { Redis } from 'ioredis';

export type { Redis };

/**
 * One ioredis connection. BullMQ workers need maxRetriesPerRequest: null; the
 * same settings are fine for the rate limiter and health checks.
 */
export function createRedis(url: string, name = 'cotaverde', mode: 'queue' | 'fail-fast' = 'queue'): Redis {
  if (mode === 'fail-fast') {
    // For request-path helpers (rate limits): a command waits at most ~1 s, then errors.
    return new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 1000, enableReadyCheck: true, connectionName: name });
  }
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name, lazyConnect: false });
}
