import { z } from 'zod';
import type { BoardNumber, DrawStatus } from '../shared/api/draws';
import type { LiveBoardEvent, LiveCounts } from '../shared/api/live';

/** The live boards' words: the recorded snapshot of a draw, event ids, frames (pure, no I/O). */

export const LastEventId = z.string().regex(/^\d{1,16}-\d{1,16}$/);

/** What is recorded per draw: its status, successor and every cell as "status|initials". */
export interface Snapshot {
  id: string;
  status: DrawStatus;
  successor_id: number | null;
  total_numbers: number;
  cells: Record<string, string>;
}

export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-');
  const [bm, bs] = b.split('-');
  if (am.length !== bm.length) return am.length - bm.length;
  if (am !== bm) return am < bm ? -1 : 1;
  return Number(as) - Number(bs);
}

export function cellOf(b: { status: string; initials: string | null }) {
  return `${b.status}|${b.initials ?? ''}`;
}

export function numberOf(n: string, cell: string): BoardNumber {
  const [status, initials] = cell.split('|');
  return { n: Number(n), status: status as BoardNumber['status'], initials: initials || null };
}

export function countsOf(cells: Record<string, string>): LiveCounts {
  const c: LiveCounts = { available: 0, reserved: 0, sold: 0, taken: 0 };
  for (const v of Object.values(cells)) {
    const s = v.slice(0, v.indexOf('|'));
    if (s === 'available') c.available++;
    else if (s === 'reserved') c.reserved++;
    else if (s === 'sold') c.sold++;
    else c.taken++;
  }
  return c;
}

export function frame(id: string | null, event: string, data: unknown): Buffer {
  return Buffer.from(`${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`, 'utf8');
}

export function nextId(last: string | null): string {
  const now = Date.now();
  if (!last) return `${now}-0`;
  const [ms, seq] = last.split('-').map(Number);
  return now > ms ? `${now}-0` : `${ms}-${seq + 1}`;
}

export function boardEvent(drawId: number, snap: Snapshot): LiveBoardEvent {
  return {
    draw_id: drawId,
    status: snap.status,
    successor_id: snap.successor_id,
    total_numbers: snap.total_numbers,
    numbers: Object.entries(snap.cells)
      .map(([n, c]) => numberOf(n, c))
      .sort((a, b) => a.n - b.n),
    counts: countsOf(snap.cells),
  };
}
