import type { Redis } from 'ioredis';
import type { Db } from '../platform/db';
import * as q from '../draws/queries';
import { drawStatusWord, serializeNumber } from '../draws/serializers';
import type { BoardNumber } from '../shared/api/draws';
import type { LiveDrawEvent, LiveNumbersEvent } from '../shared/api/live';
import { cellOf, countsOf, nextId, numberOf, type Snapshot } from './frames';

const LOCK_NAMESPACE = 0x4c495645; // 'LIVE': the first key of pg_advisory_xact_lock(int, int)
const SNAPSHOT_TTL_S = 7 * 24 * 3600;

/** The Redis keys of a draw's live board: its capped event stream and its recorded snapshot. */
export const eventsKey = (prefix: string, drawId: number) => `${prefix}:live:${drawId}:events`;
export const snapshotKey = (prefix: string, drawId: number) => `${prefix}:live:${drawId}:snap`;

export interface RecorderDeps {
  db: Db;
  redis: Redis;
  prefix: string;
  streamMaxLen: number;
}

/**
 * Step 1 of live.ts: the board against the recorded snapshot, the differences appended with the
 * new snapshot in one MULTI to the draw's capped stream (one recorder at a time, whatever the process).
 */
export async function recordBoard(deps: RecorderDeps, drawId: number) {
  const { db, redis } = deps;
  await db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?, ?)', [LOCK_NAMESPACE, drawId]);
    const draw = await trx('draws').where({ id: drawId }).first('id', 'status', 'total_numbers');
    if (!draw) return;
    const [nums, successor] = await Promise.all([
      q.boardNumbers(trx, drawId),
      draw.status === 'open' ? undefined : trx('draws').where({ predecessor_id: drawId }).first('id'),
    ]);
    const cells: Record<string, string> = {};
    for (const b of nums) cells[b.n] = cellOf(serializeNumber(b));
    const status = drawStatusWord(draw.status);
    const successorId: number | null = successor?.id ?? null;

    const raw = await redis.get(snapshotKey(deps.prefix, drawId));
    const prev: Snapshot | null = raw ? (JSON.parse(raw) as Snapshot) : null;
    const tx = redis.multi();
    let last = prev?.id ?? null;
    const add = (event: string, data: unknown) => {
      last = nextId(last);
      tx.xadd(eventsKey(deps.prefix, drawId), 'MAXLEN', '~', String(deps.streamMaxLen), last, 'e', event, 'd', JSON.stringify(data));
    };
    if (!prev) {
      // First record (or the snapshot expired): a fresh stream, starting at this state.
      tx.del(eventsKey(deps.prefix, drawId));
      add('init', { draw_id: drawId });
    } else {
      const changed: BoardNumber[] = [];
      for (const [n, cell] of Object.entries(cells)) if (prev.cells[n] !== cell) changed.push(numberOf(n, cell));
      if (changed.length) add('numbers', { draw_id: drawId, numbers: changed, counts: countsOf(cells) } satisfies LiveNumbersEvent);
      if (prev.status !== status || prev.successor_id !== successorId)
        add('draw', { draw_id: drawId, status, successor_id: successorId } satisfies LiveDrawEvent);
      if (last === prev.id) return; // nothing changed
    }
    const snap: Snapshot = { id: last!, status, successor_id: successorId, total_numbers: draw.total_numbers, cells };
    tx.set(snapshotKey(deps.prefix, drawId), JSON.stringify(snap), 'EX', SNAPSHOT_TTL_S);
    tx.expire(eventsKey(deps.prefix, drawId), SNAPSHOT_TTL_S);
    const results = await tx.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('live board: MULTI aborted');
  });
}
