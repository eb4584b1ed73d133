import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { Invalidation, ReadCache } from '../platform/read-cache';
import { LastEventId, boardEvent, compareIds, frame, type Snapshot } from './frames';
import { eventsKey, recordBoard, snapshotKey } from './recorder';

/**
 * Live boards: GET /api/draws/{id}/events (server-sent events).
 *
 * Signal: every write that changes a draw already invalidates the read cache after its commit,
 * in whichever process made it (web, worker, CLI), and the cache bus (platform/cache-bus.ts)
 * brings those invalidations to every web process. A web process with open streams on a draw
 * takes that signal as "the draw changed" and:
 *
 * 1. records: under a transaction-scoped advisory lock on the draw (one recorder at a time,
 *    whatever the process), reads the board from the database and compares it with the last
 *    recorded snapshot kept in Redis; the differences become events (`numbers`: the cells that
 *    changed and the new counts; `draw`: a status change, with the successor once one is open),
 *    appended with the new snapshot in one MULTI to a capped Redis stream per draw. Their ids are
 *    the stream's ids, the same in every process, so `Last-Event-ID` works across processes.
 * 2. delivers: reads the stream past what this process has already pushed and writes each event,
 *    serialized once, to every open stream on the draw.
 *
 * A new stream gets a `board` event (the whole board at the snapshot's id). A stream that comes
 * back with `Last-Event-ID` gets every event after that id when the stream still holds it,
 * otherwise a `reload` event followed by a fresh `board`. Cells carry absolute states, so an
 * event applied twice changes nothing.
 *
 * Heartbeat comments keep proxies from closing idle streams; open streams are counted and capped
 * per process (503 beyond the cap) and per client address in the process (429 beyond it: one
 * client cannot take every place). A slow safety pass re-checks the draws with open streams, in
 * case a bus message was lost while Redis was reconnecting.
 *
 * Redis: the stream reads go through their own connection, which waits for a slow server (a
 * burst of opens on a busy process is slow, not down) for `redisTimeoutMs`, while a command sent
 * when it is disconnected still fails at once (no offline queue), so a stream opened while Redis
 * is down answers 503 at once. New streams of a draw that start together share one read of its
 * snapshot and one serialized board.
 */

const SAFETY_PASS_MS = 10_000;
/** A stream whose client reads slower than this many unsent bytes is closed (it resumes with Last-Event-ID). */
const MAX_BUFFERED_BYTES = 1 << 20;

export type { LiveBoardEvent, LiveCounts, LiveDrawEvent, LiveNumbersEvent } from '../shared/api/live';

/** What new streams of a draw start from: the recorded snapshot and its `board` frame, serialized once. */
interface FreshStart {
  snap: Snapshot;
  board: Buffer;
}

interface Conn {
  res: ServerResponse;
  /** The id of the last event this stream has (or that its board reflects). */
  cursor: string | null;
  /** While the stream starts: what the channel delivered meanwhile, sent once it has its start. */
  pending: Array<{ id: string; bytes: Buffer }> | null;
  /** Single-draw streams carry event ids (Last-Event-ID resumes); a several-draw stream does not. */
  withIds: boolean;
}

interface Channel {
  drawId: number;
  conns: Set<Conn>;
  /** The id of the last event this process has delivered on this draw. */
  cursor: string | null;
  running: Promise<void> | null;
  dirty: boolean;
}

export interface LiveBoards {
  /**
   * Answers a stream request (the route validated the id and that the draw exists) from `client`
   * (its address). Returns with nothing written when the process's cap is reached ('full', 503),
   * the client's own cap is ('client_full', 429) or Redis is away ('unavailable', 503).
   */
  open(
    drawIds: number[],
    req: IncomingMessage,
    res: ServerResponse,
    lastEventId: string | undefined,
    client: string,
  ): Promise<'ok' | 'full' | 'client_full' | 'unavailable'>;
  /** Open streams in this process. */
  readonly openStreams: number;
  /** Open streams of one client address in this process. */
  openStreamsOf(client: string): number;
  /** Ends every stream (shutdown). */
  closeAll(): void;
}

export function createLiveBoards(deps: {
  db: Db;
  /** The streams' reads and writes: waits for a slow server (its own command timeout), fails at once while it is down. */
  redis: Redis;
  readCache: ReadCache;
  prefix: string;
  logger: Logger;
  maxStreams: number;
  maxStreamsPerClient: number;
  heartbeatMs: number;
  streamMaxLen: number;
}): LiveBoards {
  const { redis, logger } = deps;
  const channels = new Map<number, Channel>();
  /** Every open stream of this process (counted against the cap; heartbeats go to each once). */
  const streams = new Set<ServerResponse>();
  /** Open streams per client address (counted against the per-client cap). */
  const perClient = new Map<string, number>();
  /** Per draw, the snapshot read that new streams starting now will share (see freshStart). */
  const freshReads = new Map<number, Promise<FreshStart | null>>();
  let timers: NodeJS.Timeout[] = [];
  const streamKey = (drawId: number) => eventsKey(deps.prefix, drawId);
  const snapKey = (drawId: number) => snapshotKey(deps.prefix, drawId);
  const record = (drawId: number) => recordBoard(deps, drawId);

  deps.readCache.observe((m: Invalidation) => {
    if (m.kind === 'all') for (const ch of channels.values()) void pump(ch);
    else {
      const ch = channels.get(m.drawId);
      if (ch) void pump(ch);
    }
  });

  function write(conn: Conn, framed: Buffer) {
    if (conn.res.destroyed) return;
    // A frame starts with its "id: …" line when it has one; a several-draw stream drops it.
    const bytes = !conn.withIds && framed[0] === 0x69 && framed[1] === 0x64 ? framed.subarray(framed.indexOf(0x0a) + 1) : framed;
    if (conn.res.writableLength > MAX_BUFFERED_BYTES) {
      conn.res.destroy(); // a client that stopped reading: it resumes with Last-Event-ID
      return;
    }
    conn.res.write(bytes);
  }

  function send(conn: Conn, id: string, bytes: Buffer) {
    if (conn.pending) {
      conn.pending.push({ id, bytes });
      return;
    }
    if (conn.cursor && compareIds(id, conn.cursor) <= 0) return;
    conn.cursor = id;
    write(conn, bytes);
  }

  /** Step 2: the stream past this process's cursor, to every open stream of the draw. */
  async function deliver(ch: Channel) {
    const key = streamKey(ch.drawId);
    if (ch.cursor === null) {
      const snapRaw = await redis.get(snapKey(ch.drawId));
      ch.cursor = snapRaw ? (JSON.parse(snapRaw) as Snapshot).id : null;
      return;
    }
    const [[, first], [, entries]] = (await redis.multi().xrange(key, '-', '+', 'COUNT', 1).xrange(key, `(${ch.cursor}`, '+').exec()) as [
      [Error | null, Array<[string, string[]]>],
      [Error | null, Array<[string, string[]]>],
    ];
    if (first.length && compareIds(first[0][0], ch.cursor) > 0 && !isInit(first[0][1])) {
      // The stream was trimmed past this process's cursor: its streams reload the board.
      const snap = await readSnapshot(ch.drawId);
      if (snap) for (const conn of ch.conns) if (!conn.pending) startFresh(conn, ch.drawId, snap, 'behind');
      ch.cursor = snap?.id ?? ch.cursor;
      return;
    }
    for (const [id, fields] of entries) {
      ch.cursor = id;
      const ev = fields[1];
      if (ev === 'init') {
        // The snapshot was started again: everything before is gone, so every stream reloads.
        const snap = await readSnapshot(ch.drawId);
        if (snap) for (const conn of ch.conns) if (!conn.pending) startFresh(conn, ch.drawId, snap, 'restarted');
        continue;
      }
      const bytes = frame(id, ev, JSON.parse(fields[3]));
      for (const conn of ch.conns) send(conn, id, bytes);
    }
  }

  function isInit(fields: string[]) {
    return fields[1] === 'init';
  }

  /** Records then delivers; a signal that arrives meanwhile runs both again once. */
  function pump(ch: Channel): Promise<void> {
    if (ch.running) {
      ch.dirty = true;
      return ch.running;
    }
    ch.running = (async () => {
      try {
        do {
          ch.dirty = false;
          await record(ch.drawId);
          await deliver(ch);
        } while (ch.dirty && ch.conns.size);
      } finally {
        ch.running = null;
      }
    })();
    return ch.running;
  }

  async function readSnapshot(drawId: number): Promise<Snapshot | null> {
    const raw = await redis.get(snapKey(drawId));
    return raw ? (JSON.parse(raw) as Snapshot) : null;
  }

  function startFresh(conn: Conn, drawId: number, snap: Snapshot, reason: 'initial' | 'gap' | 'behind' | 'restarted', board?: Buffer) {
    if (reason !== 'initial') write(conn, frame(null, 'reload', { draw_id: drawId, reason }));
    conn.cursor = snap.id;
    write(conn, board ?? frame(snap.id, 'board', boardEvent(drawId, snap)));
  }

  function heartbeat() {
    const beat = Buffer.from(': heartbeat\n\n');
    for (const res of streams) if (res.headersSent && !res.destroyed) res.write(beat); // not on a stream still starting
  }

  function safetyPass() {
    for (const ch of channels.values())
      void pump(ch).catch((err: Error) => logger.warn({ err: err.message, drawId: ch.drawId }, 'live board: safety pass failed'));
  }

  function startTimers() {
    if (timers.length) return;
    timers = [setInterval(heartbeat, deps.heartbeatMs), setInterval(safetyPass, SAFETY_PASS_MS)];
    for (const t of timers) t.unref();
  }

  function detach(ch: Channel, conn: Conn) {
    if (!ch.conns.delete(conn)) return;
    if (!ch.conns.size && channels.get(ch.drawId) === ch) channels.delete(ch.drawId);
  }

  /** One draw of a stream: registered (events held back) until its start is sent. */
  function attach(drawId: number, res: ServerResponse, withIds: boolean) {
    let ch = channels.get(drawId);
    if (!ch) {
      ch = { drawId, conns: new Set(), cursor: null, running: null, dirty: false };
      channels.set(drawId, ch);
    }
    const conn: Conn = { res, cursor: null, pending: [], withIds };
    ch.conns.add(conn);
    return { ch, conn };
  }

  /**
   * The snapshot and its serialized board for new streams of a draw, read once for every stream
   * that asks within the same turn of the event loop. Only a read issued after a stream was
   * attached may serve it (events delivered before that would be missing from its start), so a
   * read is joined only until it is sent.
   */
  function freshStart(drawId: number): Promise<FreshStart | null> {
    let read = freshReads.get(drawId);
    if (!read) {
      read = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        freshReads.delete(drawId);
        const snap = await readSnapshot(drawId);
        return snap ? { snap, board: frame(snap.id, 'board', boardEvent(drawId, snap)) } : null;
      });
      freshReads.set(drawId, read);
      // A failed read is each joiner's failure; nothing is left unhandled meanwhile.
      read.catch(() => {});
    }
    return read;
  }

  /** Where a draw's stream starts: the events after `resume` when the stream still holds them, else the board. */
  async function start(drawId: number, conn: Conn, lastEventId: string | undefined) {
    const key = streamKey(drawId);
    const resume = lastEventId !== undefined && LastEventId.safeParse(lastEventId).success ? lastEventId : null;
    if (resume === null) {
      const fresh = await freshStart(drawId);
      if (!fresh) throw new Error('live board: no snapshot after recording');
      return () => {
        startFresh(conn, drawId, fresh.snap, lastEventId !== undefined ? 'gap' : 'initial', fresh.board);
        const pending = conn.pending ?? [];
        conn.pending = null;
        for (const p of pending) send(conn, p.id, p.bytes);
      };
    }
    const [[, snapRaw], [, first], [, after]] = (await redis
      .multi()
      .get(snapKey(drawId))
      .xrange(key, '-', '+', 'COUNT', 1)
      .xrange(key, resume ? `(${resume}` : '+', '+')
      .exec()) as [[Error | null, string | null], [Error | null, Array<[string, string[]]>], [Error | null, Array<[string, string[]]>]];
    if (!snapRaw) throw new Error('live board: no snapshot after recording');
    const snap = JSON.parse(snapRaw) as Snapshot;
    return () => {
      // Resumable: the stream still holds the client's id (its first entry is at or before it) and the id is not in the future.
      const resumable =
        resume !== null &&
        first.length > 0 &&
        compareIds(first[0][0], resume) <= 0 &&
        compareIds(resume, snap.id) <= 0 &&
        !after.some(([, f]) => isInit(f));
      if (resumable) {
        conn.cursor = resume;
        for (const [id, fields] of after) {
          conn.cursor = id;
          write(conn, frame(id, fields[1], JSON.parse(fields[3])));
        }
      } else startFresh(conn, drawId, snap, lastEventId !== undefined ? 'gap' : 'initial');
      const pending = conn.pending ?? [];
      conn.pending = null;
      for (const p of pending) send(conn, p.id, p.bytes);
    };
  }

  return {
    get openStreams() {
      return streams.size;
    },

    openStreamsOf(client) {
      return perClient.get(client) ?? 0;
    },

    async open(drawIds, req, res, lastEventId, client) {
      if ((perClient.get(client) ?? 0) >= deps.maxStreamsPerClient) return 'client_full';
      if (streams.size >= deps.maxStreams) return 'full';
      // Several draws on one stream (the home page's cards): no ids, so no resume; a reconnection gets the boards again.
      const withIds = drawIds.length === 1;
      const parts = drawIds.map((drawId) => attach(drawId, res, withIds));
      streams.add(res);
      perClient.set(client, (perClient.get(client) ?? 0) + 1);
      let closed = false;
      const release = () => {
        if (closed) return;
        closed = true;
        streams.delete(res);
        const left = (perClient.get(client) ?? 1) - 1;
        if (left > 0) perClient.set(client, left);
        else perClient.delete(client);
        for (const { ch, conn } of parts) detach(ch, conn);
        if (!streams.size) {
          for (const t of timers) clearInterval(t);
          timers = [];
        }
      };
      req.on('close', release);
      try {
        await Promise.all(parts.map(({ ch }) => pump(ch)));
        const starts = await Promise.all(parts.map(({ ch, conn }) => start(ch.drawId, conn, withIds ? lastEventId : undefined)));
        if (closed) return 'ok';
        res.writeHead(200, {
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-cache, no-transform',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no',
        });
        res.write('retry: 3000\n\n');
        for (const go of starts) go();
        startTimers();
        return 'ok';
      } catch (err) {
        logger.warn({ err: (err as Error).message, drawIds }, 'live board: stream not started (Redis or database away)');
        release();
        if (res.headersSent) {
          res.destroy();
          return 'ok';
        }
        return 'unavailable';
      }
    },

    closeAll() {
      for (const res of streams) res.end();
      for (const t of timers) clearInterval(t);
      timers = [];
    },
  };
}
