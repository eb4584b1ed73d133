import type { Db, Trx } from './db';

/**
 * The domain events (table `domain_events`, the transactional outbox): name → payload. An event is
 * written in the transaction of the change it announces (`emitEvent`) and relayed afterwards by
 * the worker's outbox relay (jobs/outbox.ts) to the handlers each module registers for it.
 * platform owns the table's writes: emitting here, the relay's marks below (DECISIONS "Who writes
 * what").
 */
export interface DomainEvents {
  /** A draw opened, in the opening transaction (RULES D5); `by` is the draw's `opened_by`. */
  'draw.opened': { drawId: number; infoproductId: number | null; by: 'sellout' | 'admin' | 'customer' };
  /** A draw closed: sold out (RULES D2) or paused by an admin (RULES D3). */
  'draw.closed': { drawId: number; by: 'sellout' | 'admin' };
}

export type EventName = keyof DomainEvents;
export const EVENT_NAMES = ['draw.opened', 'draw.closed'] as const satisfies readonly EventName[];

// Compile-time check that EVENT_NAMES lists every key of DomainEvents.
type Missing = Exclude<EventName, (typeof EVENT_NAMES)[number]>;
const _allListed: Missing extends never ? true : never = true;
void _allListed;

export function isEventName(name: string): name is EventName {
  return (EVENT_NAMES as readonly string[]).includes(name);
}

/** Writes one event in the caller's transaction: it exists exactly when the change it announces commits. */
export async function emitEvent<E extends EventName>(trx: Trx, name: E, payload: DomainEvents[E]): Promise<void> {
  await trx('domain_events').insert({ name, payload: JSON.stringify(payload) });
}

/** An event not yet dispatched, as the relay reads it. */
export interface PendingEvent {
  id: number;
  name: string;
  payload: unknown;
}

/**
 * The relay's batch: undispatched events of the given names, oldest first, locked (FOR UPDATE SKIP
 * LOCKED) so two relays never take the same event.
 */
export async function lockPendingEvents(trx: Trx, names: readonly string[], limit: number): Promise<PendingEvent[]> {
  const rows: PendingEvent[] = await trx('domain_events')
    .whereNull('dispatched_at')
    .whereIn('name', names as string[])
    .orderBy('id')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .select('id', 'name', 'payload');
  return rows.map((r) => ({ id: Number(r.id), name: r.name, payload: r.payload }));
}

/** Marks events dispatched (their handlers ran, or their name is declared as having none). */
export async function markEventsDispatched(trx: Trx, ids: readonly number[]): Promise<void> {
  if (ids.length)
    await trx('domain_events')
      .whereIn('id', ids as number[])
      .update({ dispatched_at: trx.fn.now() });
}

/** Undispatched events whose name is none of `known`, counted by name (the relay never takes them). */
export async function countUnknownPendingEvents(db: Db, known: readonly string[]): Promise<Array<{ name: string; count: number }>> {
  const rows: Array<{ name: string; count: number }> = await db('domain_events')
    .whereNull('dispatched_at')
    .whereNotIn('name', known as string[])
    .groupBy('name')
    .orderBy('name')
    .select('name', db.raw('count(*)::int AS count'));
  return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
}
