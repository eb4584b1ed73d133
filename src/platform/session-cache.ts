/**
 * The per-process cache of signed-in sessions: token hash → the account the bearer lookup
 * attached to the request (users + auth_tokens, one query), so the reads a signed-in browser
 * repeats (its account, its vouchers, the PIX status polled every 3 s) do not each pay that
 * query.
 *
 * Sessions stay revocable at once on every process:
 * - Every write that ends a session or changes what it carries (logout, password reset, an admin
 *   made or demoted, an account removed or edited) calls `userChanged(userId)` once its
 *   transaction has committed: this process drops that user's entries, and the change is
 *   published through Redis (cache-bus.ts) to every web process, which drops them too. The
 *   publish is awaited, so when the request that made the change answers, Redis has already
 *   handed the message to every subscriber.
 * - Entries are served only while this process's subscription to that bus is live
 *   (`trustWhile`): with Redis away, or the subscription being re-established, every request
 *   reads the database as before. When the subscription comes back the whole cache is dropped
 *   (messages sent meanwhile were missed).
 * - A lookup that started before an invalidation never lands (generation counter), and every
 *   entry lives at most `ttlMs` (5 s), a bound for what no message can cover.
 * - Admin routes do not trust it: their access check (RULES H1, U1) reads the account from the
 *   database for every admin request; see platform/http/context.ts accessControl.
 */
export const SESSION_CACHE_TTL_MS = 5000;

export interface SessionChange {
  userId: number;
  /** False: only the user's data changed (a payment, a hold): their cached reads go, their sessions stay. */
  sessions?: boolean;
}

interface Entry<T> {
  value: T;
  userId: number;
  at: number;
  /** The session's own end (ms since the epoch): a hit past it is a miss. */
  expiresAt: number;
}

export interface Loaded<T> {
  value: T;
  userId: number;
  /** When the session itself expires (its expires_at). */
  expiresAt: Date | number;
}

export class SessionCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly byUser = new Map<number, Set<string>>();
  private generation = 0;
  private trusted: () => boolean = () => false;
  private readonly listeners: Array<(c: SessionChange) => Promise<void> | void> = [];
  private readonly droppers: Array<(userId: number) => void> = [];
  readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(o: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
    this.ttlMs = Math.max(0, Math.min(SESSION_CACHE_TTL_MS, o.ttlMs ?? SESSION_CACHE_TTL_MS));
    this.maxEntries = o.maxEntries ?? 20_000;
    this.now = o.now ?? Date.now;
  }

  /** Entries are served only while `live()` says the cross-process invalidations arrive (web processes). */
  trustWhile(live: () => boolean) {
    this.trusted = live;
  }

  /**
   * The value of `key` (a session token's hash): from the cache when trusted and fresh, else
   * `load()`'s, which is kept unless an invalidation happened while it ran.
   */
  async get(key: string, load: () => Promise<Loaded<T> | null>): Promise<T | null> {
    const live = this.ttlMs > 0 && this.trusted();
    if (live) {
      const hit = this.entries.get(key);
      const now = this.now();
      if (hit && now - hit.at < this.ttlMs && now < hit.expiresAt) return hit.value;
      if (hit) this.delete(key);
    }
    const generation = this.generation;
    const at = this.now();
    const loaded = await load();
    if (!loaded) return null;
    if (live && this.generation === generation && this.trusted())
      this.set(key, { value: loaded.value, userId: loaded.userId, at, expiresAt: Number(loaded.expiresAt) });
    return loaded.value;
  }

  /**
   * A user's sessions or account changed (committed): drops their entries here and tells the
   * other processes; resolves once the message is handed to Redis (or failed: then the TTL and
   * the other processes' subscription state bound what they serve).
   */
  async userChanged(userId: number): Promise<void> {
    await this.tell({ userId });
  }

  /**
   * Only a user's data changed (committed: a payment's status, a hold, vouchers), not their
   * account: their cached reads (user-read-cache.ts) go here and on every web process.
   */
  async userDataChanged(userId: number): Promise<void> {
    await this.tell({ userId, sessions: false });
  }

  private async tell(c: SessionChange) {
    this.applyRemote(c);
    await Promise.all(
      this.listeners.map((l) =>
        Promise.resolve()
          .then(() => l(c))
          .catch(() => {}),
      ),
    );
  }

  /** Called with every change made in this process (cache-bus.ts publishes it). */
  onChange(listener: (c: SessionChange) => Promise<void> | void) {
    this.listeners.push(listener);
  }

  /** Also drops `userId`'s entries in another per-user cache (user-read-cache.ts), here and on remote changes. */
  alsoDrop(drop: (userId: number) => void) {
    this.droppers.push(drop);
  }

  /** A change made by another process: applied here, not passed on. */
  applyRemote(c: SessionChange) {
    for (const d of this.droppers) d(c.userId);
    if (c.sessions === false) return;
    this.generation++;
    const keys = this.byUser.get(c.userId);
    if (keys) for (const k of [...keys]) this.delete(k);
  }

  /** Forgets everything (the bus reconnected: messages may have been missed). */
  dropAll() {
    this.generation++;
    this.entries.clear();
    this.byUser.clear();
  }

  get size() {
    return this.entries.size;
  }

  private set(key: string, entry: Entry<T>) {
    const { userId } = entry;
    this.delete(key);
    if (this.entries.size >= this.maxEntries) {
      // Oldest first (a Map iterates in insertion order); expired ones go with them.
      for (const k of this.entries.keys()) {
        this.delete(k);
        if (this.entries.size < this.maxEntries * 0.9) break;
      }
    }
    this.entries.set(key, entry);
    let keys = this.byUser.get(userId);
    if (!keys) this.byUser.set(userId, (keys = new Set()));
    keys.add(key);
  }

  private delete(key: string) {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    const keys = this.byUser.get(e.userId);
    keys?.delete(key);
    if (keys && keys.size === 0) this.byUser.delete(e.userId);
  }
}
