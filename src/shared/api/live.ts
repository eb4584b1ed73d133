/**
 * Payloads of the live board streams (GET /api/draws/{id}/events and GET /api/draws/events?ids=),
 * declared once: the server (src/draws/live.ts) writes them, the web (web/src/live) reads them.
 * Types only. Event names: `board` (the whole board, at connection or after `reload`),
 * `numbers` (the cells that changed, absolute states, and the new counts), `draw` (its status
 * changed; `successor_id` once the next draw of the product is open), `reload` (the stream could
 * not resume from Last-Event-ID: a `board` follows).
 */
import type { BoardNumber, DrawStatus } from './draws';

export interface LiveCounts {
  available: number;
  reserved: number;
  sold: number;
  taken: number;
}

export interface LiveBoardEvent {
  draw_id: number;
  status: DrawStatus;
  successor_id: number | null;
  total_numbers: number;
  numbers: BoardNumber[];
  counts: LiveCounts;
}

export interface LiveNumbersEvent {
  draw_id: number;
  numbers: BoardNumber[];
  counts: LiveCounts;
}

export interface LiveDrawEvent {
  draw_id: number;
  status: DrawStatus;
  successor_id: number | null;
}

export interface LiveReloadEvent {
  draw_id: number;
  reason: 'gap' | 'behind' | 'restarted';
}

export type LiveEvent =
  | { type: 'board'; data: LiveBoardEvent }
  | { type: 'numbers'; data: LiveNumbersEvent }
  | { type: 'draw'; data: LiveDrawEvent }
  | { type: 'reload'; data: LiveReloadEvent };
