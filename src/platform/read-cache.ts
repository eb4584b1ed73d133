import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Trx } from './db';

/**
 * One per-process cache for every public read (product list, sections, a
 * product's open draw, draws, boards, public config), holding the serialized
 * answer: the route sends those bytes as-is, never re-serializing.
 *
 * - Key: the route plus its normalized (already validated) query.
 * - Single-flight: concurrent misses of one key share one build.
 * - An answer is served at most `ttlMs` (≤ 1 s) after its build started, which
 *   bounds how stale it can be after a write made by another process (the CLI,
 *   a worker, another web process).
 * - Refresh ahead: a hit on an answer older than half the TTL starts one
 *   background rebuild and keeps serving the current answer until the new one
 *   is ready, so a busy key never makes its readers wait for the database.
 * - In this process, writes invalidate at once: `invalidateDraw(id)` drops every
 *   answer that shows that draw, `invalidateAll()` everything (a draw opened or
 *   closed, a product or the config changed). Both also drop every build in
 *   flight, since it may have read the database before the write committed.
 * - Other processes: every invalidation is also published through Redis (cache-bus.ts) and
 *   applied by every web process; while Redis is away the TTL above is the bound.
 * - Answers never depend on the caller: nothing per-user goes in here.
 * - Errors (404, …) are not cached: the next request builds again.
 */
export const READ_CACHE_MAX_TTL_MS = 1000;

export interface CachedJson {
  /** The serialized answer (exactly what `JSON.stringify` gives for the answer object). */
  json: string;
  /** The same bytes, UTF-8 encoded once: what the routes send. */
  bytes: Buffer;
  /** Strong ETag of the bytes. */
  etag: string;
}

/** What a builder returns: the answer object and the draws it shows (for invalidation). */
export interface Built {
  body: unknown;
  drawIds: Iterable<number | null | undefined>;
}

interface Entry {
  key: string;
  /** When its build started: the age of the data it holds. */
  at: number;
  /** Size of the answer once built (0 while in flight). */
  size: number;
  value: Promise<CachedJson>;
  /** The draws it shows; null while its build is in flight. */
  drawIds: Set<number> | null;
  refreshing: boolean;
}

/** One invalidation, as published to the other processes (cache-bus.ts). */
export type Invalidation = { kind: 'draw'; drawId: number } | { kind: 'all' };

export interface ReadCacheOptions {
  /** Entry lifetime, clamped to [0, 1000] ms; 0 disables caching (single-flight only). */
  ttlMs?: number;
  /** Hard caps (the oldest entries go first); expired entries are also swept once per TTL. */
  maxEntries?: number;
  maxBytes?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export function toCachedJson(body: unknown): CachedJson {
  const json = JSON.stringify(body);
  const bytes = Buffer.from(json, 'utf8');
  return { json, bytes, etag: `"${createHash('sha1').update(bytes).digest('base64url')}"` };
}

export class ReadCache {
  readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private bytes = 0;
  private lastSweep: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();
  /** Each built answer → its entry (isFresh). */
  private readonly owners = new WeakMap<CachedJson, Entry>();
  /** Bumped by every invalidation: a rebuild started before one never lands. */
  private generation = 0;
  private readonly listeners: Array<(m: Invalidation) => void> = [];
  private readonly observers: Array<(m: Invalidation) => void> = [];

  constructor(o: ReadCacheOptions = {}) {
    this.ttlMs = Math.max(0, Math.min(READ_CACHE_MAX_TTL_MS, o.ttlMs ?? READ_CACHE_MAX_TTL_MS));
    this.maxEntries = o.maxEntries ?? 2000;
    this.maxBytes = o.maxBytes ?? 64 * 2 ** 20;
    this.now = o.now ?? Date.now;
    this.lastSweep = this.now();
  }

  /** The cached answer of `key`, building it with `build` on a miss (one build for concurrent misses). */
  get(key: string, build: () => Promise<Built>): Promise<CachedJson> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.drawIds === null) return hit.value; // in flight: share it
      const age = now - hit.at;
      if (age < this.ttlMs) {
        if (age >= this.ttlMs / 2 && !hit.refreshing) this.refresh(key, hit, build, now);
        return hit.value;
      }
      this.delete(key);
    }
    if (now - this.lastSweep >= this.ttlMs) this.sweep(now);
    const entry: Entry = { key, at: now, size: 0, value: Promise.resolve(null as unknown as CachedJson), drawIds: null, refreshing: false };
    entry.value = this.run(build).then(
      ({ out, drawIds }) => {
        if (this.entries.get(key) === entry) {
          if (this.ttlMs === 0) this.delete(key);
          else {
            entry.drawIds = drawIds;
            this.sized(entry, out);
          }
        }
        return out;
      },
      (e) => {
        if (this.entries.get(key) === entry) this.delete(key);
        throw e;
      },
    );
    this.entries.set(key, entry);
    this.enforceCaps();
    return entry.value;
  }

  /** Drops every answer that shows draw `drawId`, and every build in flight; tells the other processes. */
  invalidateDraw(drawId: number) {
    this.dropDraw(drawId);
    this.emit({ kind: 'draw', drawId });
  }

  /** Drops everything (a draw opened or closed, a product or the config changed); tells the other processes. */
  invalidateAll() {
    this.dropAll();
    this.emit({ kind: 'all' });
  }

  /**
   * Called with every invalidation made in this process (the Redis bus, cache-bus.ts, publishes
   * it to the other web processes). A listener that throws is ignored.
   */
  onInvalidate(listener: (m: Invalidation) => void) {
    this.listeners.push(listener);
  }

  /** An invalidation made by another process: applied here, not passed on. */
  applyRemote(m: Invalidation) {
    if (m.kind === 'all') this.dropAll();
    else this.dropDraw(m.drawId);
    this.notify(this.observers, m);
  }

  /**
   * Called with every invalidation this process learns of: its own (after its write committed)
   * and, in a subscribed web process, every other process's. The live boards (draws/live.ts)
   * take it as the signal that a draw changed. A listener that throws is ignored.
   */
  observe(listener: (m: Invalidation) => void) {
    this.observers.push(listener);
  }

  private dropDraw(drawId: number) {
    this.generation++;
    for (const [key, e] of this.entries) if (e.drawIds === null || e.drawIds.has(drawId)) this.delete(key);
  }

  private dropAll() {
    this.generation++;
    this.entries.clear();
    this.bytes = 0;
  }

  private emit(m: Invalidation) {
    this.notify(this.listeners, m);
    this.notify(this.observers, m);
  }

  private notify(listeners: Array<(m: Invalidation) => void>, m: Invalidation) {
    for (const l of listeners) {
      try {
        l(m);
      } catch {
        /* a listener's failure never blocks the write path */
      }
    }
  }

  /**
   * Runs `invalidateAll()` once the outermost transaction of `trx` commits
   * (nothing if it rolls back): invalidating before the commit would let a read
   * rebuild from the old rows and keep them for up to a second.
   */
  invalidateAllAfterCommit(trx: Trx) {
    let root = trx as Trx & { parentTransaction?: Trx };
    while (root.parentTransaction) root = root.parentTransaction as Trx & { parentTransaction?: Trx };
    root.executionPromise.then(
      () => this.invalidateAll(),
      () => {},
    );
  }

  /**
   * Whether `answer` is still the one cached for its key and younger than `fraction` of the TTL
   * (the HTTP fast lane serves it without asking `get`, so without starting a refresh: it stops
   * at half the TTL and leaves the rest to `get`).
   */
  isFresh(answer: CachedJson, fraction = 1): boolean {
    const e = this.owners.get(answer);
    return !!e && this.entries.get(e.key) === e && this.now() - e.at < this.ttlMs * fraction;
  }

  get size() {
    return this.entries.size;
  }

  /** Memory held by the answers (UTF-8 bytes plus the JSON string), roughly. */
  get heldBytes() {
    return this.bytes;
  }

  private async run(build: () => Promise<Built>) {
    const b = await build();
    const drawIds = new Set<number>();
    for (const id of b.drawIds) if (id != null) drawIds.add(id);
    return { out: toCachedJson(b.body), drawIds };
  }

  /** Rebuilds `key` in the background; the new answer replaces `current` only if nothing invalidated it meanwhile. */
  private refresh(key: string, current: Entry, build: () => Promise<Built>, now: number) {
    current.refreshing = true;
    const generation = this.generation;
    this.run(build).then(
      ({ out, drawIds }) => {
        if (this.entries.get(key) !== current || this.generation !== generation) {
          current.refreshing = false;
          return;
        }
        this.delete(key); // re-inserted last: eviction goes oldest first
        const entry: Entry = { key, at: now, size: 0, value: Promise.resolve(out), drawIds, refreshing: false };
        this.entries.set(key, entry);
        this.sized(entry, out);
      },
      () => {
        // The current answer stays until its TTL; the next hit tries again.
        current.refreshing = false;
      },
    );
  }

  private delete(key: string) {
    const e = this.entries.get(key);
    if (!e) return;
    this.bytes -= e.size;
    this.entries.delete(key);
  }

  private sized(entry: Entry, out: CachedJson) {
    this.owners.set(out, entry);
    entry.size = out.bytes.length + out.json.length * 2;
    this.bytes += entry.size;
    this.enforceCaps();
  }

  /** Drops the expired answers (so memory holds about one TTL's worth of answers). */
  private sweep(now: number) {
    this.lastSweep = now;
    for (const [key, e] of this.entries) if (e.drawIds !== null && now - e.at >= this.ttlMs) this.delete(key);
  }

  /** Over a cap: the oldest first (a Map iterates in insertion order). */
  private enforceCaps() {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.delete(key);
    }
  }
}

/**
 * Sends a cached answer as-is: `application/json; charset=utf-8`, its ETag, and
 * a 304 when the client already has these bytes. `no-cache` (the default) lets a
 * browser keep the body but makes it ask every time, so it never shows an answer
 * older than the server's.
 */
export function sendCachedJson(ctx: Context, c: CachedJson, cacheControl = 'no-cache') {
  ctx.status = 200;
  ctx.type = 'application/json; charset=utf-8';
  ctx.set('ETag', c.etag);
  ctx.set('Cache-Control', cacheControl);
  // (ctx.fresh copies every response header: only asked when the client holds a copy.)
  if (ctx.get('If-None-Match') && ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = c.bytes;
  ctx.state.publicAnswer = c; // the HTTP fast lane may serve these bytes next time (http/fast-lane.ts)
}
