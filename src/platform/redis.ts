import { Redis } from 'ioredis';

export type { Redis };

/**
 * One ioredis connection. BullMQ workers need maxRetriesPerRequest: null; the
 * same settings are fine for the rate limiter and health checks.
 */
export function createRedis(url: string, name = 'cotaverde'): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name, lazyConnect: false });
}
