import type { Services } from '../src/services';
import type { Db, Trx } from '../src/platform/db';
import type { Logger } from '../src/platform/logger';
import type { JobHandler } from '../src/platform/queue';
import {
  EVENT_NAMES,
  countUnknownPendingEvents,
  lockPendingEvents,
  markEventsDispatched,
  type DomainEvents,
  type EventName,
} from '../src/platform/events';

/**
 * The outbox relay: every domain event (src/platform/events.ts) goes to the handlers the modules
 * register for its name, and is marked dispatched once they all succeeded. An event name with no
 * consumer is declared in SKIPPED_EVENTS and marked dispatched without work, so nothing piles up;
 * a row whose name is not in the event map is never marked and is logged as an error.
 *
 * A handler may run more than once for one event (its transaction may roll back after it ran, a
 * relay may crash before the commit): handlers must be idempotent (a job id that deduplicates, a
 * write guarded by a unique key). A handler that throws leaves its event undispatched; the next
 * relay (every 2 s, job outbox.relay) tries it again, while the other events go on.
 */

/** What handles one event: its payload is the one the event map gives its name. `trx` marks it dispatched. */
export type EventHandler<E extends EventName> = (payload: DomainEvents[E], ctx: { trx: Trx; eventId: number }) => Promise<unknown>;

/** One registration: an event name and a handler of that event's payload. */
export type EventEntry = { [E in EventName]: readonly [E, EventHandler<E>] }[EventName];

/** A registration typed by the event's name: `onEvent('draw.opened', (e) => …)` gives `e` that event's payload. */
export function onEvent<E extends EventName>(name: E, handler: EventHandler<E>): EventEntry {
  // The pair is the member of EventEntry for E; TypeScript cannot pick that member for a generic E.
  return [name, handler] as unknown as EventEntry;
}

export interface EventRegistry {
  handlers: ReadonlyMap<EventName, ReadonlyArray<EventHandler<EventName>>>;
  skipped: ReadonlySet<EventName>;
}

/**
 * The relay's table: fails at boot when an event of the map has neither a handler nor a place in
 * `skipped`, or has both (a consumer added later must take it out of the skipped list).
 */
export function buildEventRegistry(entries: ReadonlyArray<EventEntry>, skipped: ReadonlyArray<EventName>): EventRegistry {
  const handlers = new Map<EventName, Array<EventHandler<EventName>>>();
  for (const [name, handler] of entries) {
    if (!EVENT_NAMES.includes(name)) throw new Error(`outbox: unknown event '${name}'`);
    handlers.set(name, [...(handlers.get(name) ?? []), handler as EventHandler<EventName>]);
  }
  const skip = new Set(skipped);
  const both = [...skip].filter((n) => handlers.has(n));
  if (both.length) throw new Error(`outbox: ${both.join(', ')} both handled and skipped`);
  const missing = EVENT_NAMES.filter((n) => !handlers.has(n) && !skip.has(n));
  if (missing.length) throw new Error(`outbox: no handler for ${missing.join(', ')} (register one or declare it skipped)`);
  return { handlers, skipped: skip };
}

/**
 * Events no module consumes yet: marked dispatched as they are relayed. `draw.closed` is written
 * for the record (RULES D2, D3) and read by no one.
 */
export const SKIPPED_EVENTS: readonly EventName[] = ['draw.closed'];

/** Every module's event handlers, in one place (they only call module services, like jobs/registry.ts). */
export function registerEventHandlers(s: Pick<Services, 'autopay'>): EventRegistry {
  return buildEventRegistry(
    [
      // RULES D5: draws announces, autopay charges the captive numbers it held in the opening transaction.
      onEvent('draw.opened', (e) => s.autopay.onDrawOpened(e)),
    ],
    SKIPPED_EVENTS,
  );
}

export interface RelayPass {
  /** Events marked dispatched (handled or skipped). */
  dispatched: number;
  /** Events whose handler failed: left undispatched for the next pass. */
  failed: number;
}

export interface OutboxRelay {
  /** One pass: up to `batch` events, oldest first. Throws after committing when a handler failed (the job is marked failed). */
  relay(): Promise<RelayPass>;
}

/** How often an undispatched event of an unknown name is logged again (per name, per process). */
const UNKNOWN_LOG_EVERY_MS = 60_000;

export function createOutboxRelay(deps: { db: Db; logger: Logger; registry: EventRegistry; batch?: number }): OutboxRelay {
  const { db, logger, registry } = deps;
  const batch = deps.batch ?? 200;
  const lastLogged = new Map<string, number>();

  async function reportUnknown() {
    const unknown = await countUnknownPendingEvents(db, EVENT_NAMES);
    const now = Date.now();
    for (const { name, count } of unknown) {
      if (now - (lastLogged.get(name) ?? 0) < UNKNOWN_LOG_EVERY_MS) continue;
      lastLogged.set(name, now);
      logger.error(
        { event: name, count },
        'outbox: events of a name the event map does not know are waiting; none is relayed (add it to src/platform/events.ts and register a handler or skip it)',
      );
    }
  }

  return {
    async relay() {
      const failures: Array<{ id: number; name: string; err: string }> = [];
      const dispatched = await db.transaction(async (trx) => {
        const events = await lockPendingEvents(trx, EVENT_NAMES, batch);
        const done: number[] = [];
        for (const e of events) {
          const name = e.name as EventName;
          if (registry.skipped.has(name)) {
            done.push(e.id);
            continue;
          }
          try {
            // A savepoint per event: a failing handler's writes roll back, the others' stay.
            await trx.transaction(async (sp) => {
              for (const handle of registry.handlers.get(name) ?? [])
                await handle(e.payload as DomainEvents[EventName], { trx: sp, eventId: e.id });
            });
            done.push(e.id);
          } catch (err) {
            failures.push({ id: e.id, name: e.name, err: (err as Error).message });
          }
        }
        await markEventsDispatched(trx, done);
        return done.length;
      });
      await reportUnknown();
      if (failures.length) {
        logger.warn(
          { failures: failures.slice(0, 10), failed: failures.length, dispatched },
          'outbox: handlers failed; their events stay for the next relay',
        );
        throw new Error(`outbox: ${failures.length} event(s) not relayed: ${failures[0].name} #${failures[0].id}: ${failures[0].err}`);
      }
      return { dispatched, failed: 0 };
    },
  };
}

/**
 * The handler of job outbox.relay (jobs/registry.ts): one relay pass, then autopay's draws whose
 * runs still wait get their charge job again (a job lost with Redis). Built once per worker.
 */
export function outboxRelayJob(s: Pick<Services, 'db' | 'logger' | 'autopay'>): JobHandler<'outbox.relay'> {
  const outbox = createOutboxRelay({ db: s.db, logger: s.logger, registry: registerEventHandlers(s) });
  return async () => {
    const pass = await outbox.relay();
    await s.autopay.requeueWaiting();
    return pass.dispatched;
  };
}
