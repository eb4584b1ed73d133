import type { Context } from 'koa';
import { toCachedJson, type CachedJson } from './read-cache';

/**
 * The per-process cache of the reads a signed-in browser repeats (its account, vouchers left,
 * a PIX's status, its payments, its reservations): the serialized answer per (user, URL), so a
 * burst of the same read (several tabs, a re-mount, a focus refetch, the 3 s PIX poll from two
 * screens) costs one build.
 *
 * - Keyed by user id and the request URL: an answer only ever goes to the user it was built for
 *   (never through the public fast lane: sent with `Cache-Control: no-store`, not `publicAnswer`).
 * - An answer is served at most `ttlMs` (≤ 1 s) after its build started: the bound for writes
 *   made elsewhere (the worker approving a payment or expiring a hold, the CLI, an admin).
 * - The user's own writes drop it at once on every web process: after any non-GET request of a
 *   signed-in user, and on any session change, the app calls `SessionCache.userChanged`, whose
 *   drops reach this cache here and, through the cache bus, in the other web processes
 *   (src/http.ts). A build that started before a drop never lands (generation counter).
 * - Single-flight: concurrent misses of one key share one build. Errors are not cached.
 */
export const USER_READ_MAX_TTL_MS = 1000;

interface Entry {
  at: number;
  userId: number;
  value: Promise<CachedJson>;
  done: boolean;
}

export class UserReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byUser = new Map<number, Set<string>>();
  private generation = 0;
  readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(o: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.ttlMs = Math.max(0, Math.min(USER_READ_MAX_TTL_MS, o.ttlMs ?? USER_READ_MAX_TTL_MS));
    this.maxEntries = o.maxEntries ?? 20_000;
    this.now = o.now ?? Date.now;
  }

  get(userId: number, key: string, build: () => Promise<unknown>): Promise<CachedJson> {
    const k = `${userId} ${key}`;
    const now = this.now();
    const hit = this.entries.get(k);
    if (hit && (!hit.done || now - hit.at < this.ttlMs)) return hit.value;
    if (hit) this.delete(k);
    const generation = this.generation;
    const entry: Entry = { at: now, userId, done: false, value: Promise.resolve(null as unknown as CachedJson) };
    entry.value = build().then(
      (body) => {
        entry.done = true;
        if (this.ttlMs === 0 || this.generation !== generation) this.deleteIf(k, entry);
        return toCachedJson(body);
      },
      (e) => {
        this.deleteIf(k, entry);
        throw e;
      },
    );
    this.set(k, entry);
    return entry.value;
  }

  /** The user's data changed (committed): their answers go, and builds in flight never land. */
  dropUser(userId: number) {
    this.generation++;
    const keys = this.byUser.get(userId);
    if (keys) for (const k of [...keys]) this.delete(k);
  }

  get size() {
    return this.entries.size;
  }

  private set(k: string, e: Entry) {
    if (this.entries.size >= this.maxEntries) {
      for (const key of this.entries.keys()) {
        this.delete(key);
        if (this.entries.size < this.maxEntries * 0.9) break;
      }
    }
    this.entries.set(k, e);
    let keys = this.byUser.get(e.userId);
    if (!keys) this.byUser.set(e.userId, (keys = new Set()));
    keys.add(k);
  }

  private deleteIf(k: string, e: Entry) {
    if (this.entries.get(k) === e) this.delete(k);
  }

  private delete(k: string) {
    const e = this.entries.get(k);
    if (!e) return;
    this.entries.delete(k);
    const keys = this.byUser.get(e.userId);
    keys?.delete(k);
    if (keys && keys.size === 0) this.byUser.delete(e.userId);
  }
}

/**
 * Answers a signed-in read from the user read cache: the same bytes `ctx.body = answer` would
 * send (application/json, utf-8), `Cache-Control: no-store`.
 */
export async function sendUserRead(ctx: Context, cache: UserReadCache, userId: number, build: () => Promise<unknown>) {
  const c = await cache.get(userId, ctx.originalUrl, build);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = c.bytes;
}
