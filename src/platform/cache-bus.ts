import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from './logger';
import type { Invalidation, ReadCache } from './read-cache';
import type { SessionCache } from './session-cache';

/**
 * The read cache's invalidations between processes (several web processes, the worker, the CLI,
 * all against one Redis). Every invalidation made in a process is published on one channel;
 * every web process subscribes and applies the others' invalidations to its own cache, so a
 * sale made through web A drops web B's copy of that board at once instead of after its TTL.
 *
 * Best effort by design: while Redis is away a publish fails at once (the 'fail-fast'
 * connection) and a subscriber misses messages; the cache's ≤ 1 s TTL still bounds staleness.
 */
export interface CacheBus {
  /** Starts applying the other processes' invalidations here (web processes). Idempotent. */
  subscribe(): Promise<void>;
  /** Whether the subscription is live (for tests and diagnostics). */
  readonly subscribed: boolean;
  close(): Promise<void>;
}

/** A read-cache invalidation (`m`) or a signed-in user's change (`u`, session-cache.ts). */
interface Message {
  o: string;
  m?: Invalidation;
  u?: number;
  /** With `u`: only the user's data changed, not their sessions. */
  d?: boolean;
}

/** How long a session change's publish may take before the request that made it answers anyway. */
const SESSION_PUBLISH_WAIT_MS = 2000;

export function createCacheBus(o: {
  cache: ReadCache;
  /** The session cache: its changes are published (and awaited), the others' applied here. */
  sessions?: SessionCache<unknown>;
  publisher: Redis;
  redisUrl: string;
  channel: string;
  logger: Logger;
}): CacheBus {
  const origin = randomUUID();
  let subscriber: Redis | null = null;
  let live = false;
  let closed = false;
  /** Whether the subscription was ever lost: when it is back, missed session messages drop every session entry. */
  let lost = false;
  const setLive = (v: boolean) => {
    if (v && lost) o.sessions?.dropAll();
    if (!v && live) lost = true;
    live = v;
  };

  o.sessions?.onChange(async ({ userId, sessions }) => {
    if (closed) return;
    const payload = JSON.stringify({ o: origin, u: userId, ...(sessions === false ? { d: true } : {}) } satisfies Message);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      o.publisher.publish(o.channel, payload),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`no answer within ${SESSION_PUBLISH_WAIT_MS} ms`)), SESSION_PUBLISH_WAIT_MS)),
      ),
    ])
      .catch((err: Error) =>
        o.logger.warn(
          { err: err.message, userId },
          'session change not published (Redis away): other web processes read sessions from the database while their bus is down, else the session TTL bounds it',
        ),
      )
      .finally(() => clearTimeout(timer));
  });

  o.cache.onInvalidate((m) => {
    if (closed) return;
    const payload = JSON.stringify({ o: origin, m } satisfies Message);
    o.publisher
      .publish(o.channel, payload)
      .catch((err: Error) =>
        o.logger.debug({ err: err.message }, 'read-cache invalidation not published (Redis away): the TTL bounds staleness'),
      );
  });

  function apply(raw: string) {
    let msg: Message;
    try {
      msg = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (!msg || msg.o === origin) return;
    if (Number.isSafeInteger(msg.u)) {
      o.sessions?.applyRemote({ userId: msg.u as number, ...(msg.d === true ? { sessions: false } : {}) });
      return;
    }
    if (!msg.m) return;
    if (msg.m.kind === 'all') o.cache.applyRemote({ kind: 'all' });
    else if (msg.m.kind === 'draw' && Number.isSafeInteger(msg.m.drawId)) o.cache.applyRemote({ kind: 'draw', drawId: msg.m.drawId });
  }

  return {
    get subscribed() {
      return live;
    },
    async subscribe() {
      if (subscriber || closed) return;
      // A connection of its own (a subscribed connection takes no other command). ioredis
      // subscribes again by itself after a reconnection.
      const sub = new Redis(o.redisUrl, {
        connectionName: 'cotaverde-cache-bus',
        maxRetriesPerRequest: null,
        retryStrategy: (times) => Math.min(times * 200, 2000),
      });
      subscriber = sub;
      let down = false;
      sub.on('error', (err) => {
        if (!down)
          o.logger.warn({ err: err.message }, 'read-cache bus: Redis unreachable, other processes’ invalidations wait for the TTL');
        down = true;
      });
      sub.on('ready', () => {
        down = false;
      });
      sub.on('close', () => setLive(false));
      sub.on('message', (channel: string, raw: string) => {
        if (channel === o.channel) apply(raw);
      });
      sub.on('subscribe', () => setLive(true));
      // ioredis re-subscribes after a reconnection but emits no 'subscribe' event then.
      sub.on('ready', () => {
        if (sub.condition?.subscriber) setLive(true);
      });
      await sub.subscribe(o.channel).then(
        () => setLive(true),
        (err: Error) => o.logger.warn({ err: err.message }, 'read-cache bus: could not subscribe yet (ioredis retries)'),
      );
    },
    async close() {
      closed = true;
      live = false;
      subscriber?.disconnect();
      subscriber = null;
    },
  };
}
