import { Redis } from 'ioredis';

export type { Redis };

/**
 * One ioredis connection, in one of two modes:
 *
 * - 'queue' (BullMQ workers): commands wait for the connection however long it
 *   takes (maxRetriesPerRequest: null, which BullMQ requires for its blocking
 *   connections). Connects on first use, so a process that never runs a worker
 *   (the web) never opens it.
 * - 'fail-fast' (anything on a request path: enqueueing, rate limits, the
 *   readiness check): once it has connected, a command sent while the
 *   connection is down fails at once (no offline queue), and one sent to a
 *   server that stopped answering gives up after 1 s. Requests then take their fallback (sweeps rebuild jobs from
 *   the tables; limits use a per-process limiter) instead of hanging.
 */
export function createRedis(
  url: string,
  name = 'cotaverde',
  mode: 'queue' | 'fail-fast' = 'queue',
  o: { commandTimeoutMs?: number; lazy?: boolean } = {},
): Redis {
  if (mode === 'fail-fast') {
    const redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      // 1 s on request paths; a caller that can wait for a slow (but answering) server asks for more.
      commandTimeout: o.commandTimeoutMs ?? 1000,
      lazyConnect: o.lazy ?? false,
      // Until the first connection, commands wait for it (within commandTimeout): a process
      // that has just started must not count its first rate-limit hits in memory only.
      enableOfflineQueue: true,
      enableReadyCheck: true,
      connectionName: name,
      // Reconnect quickly once the server is back (ioredis' default backs off to 2 s as well).
      retryStrategy: (times) => Math.min(times * 100, 2000),
    });
    // ioredis reads this option on every command: from the first connection on, a command
    // sent while the connection is down fails at once instead of queueing.
    redis.once('ready', () => {
      redis.options.enableOfflineQueue = false;
    });
    return redis;
  }
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name, lazyConnect: true });
}
