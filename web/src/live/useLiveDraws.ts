/**
 * Live board updates (server-sent events, GET /api/draws/{id}/events; several draws at once on
 * GET /api/draws/events?ids=): the browser's EventSource keeps the stream open, reconnects by
 * itself and resumes with Last-Event-ID. `live` is true while the stream is open; pages keep
 * their 15 s poll for when it is not (storefront spec §4: the poll is the fallback).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { API_BASE } from '../api/base';
import type { LiveEvent } from '../../../src/shared/api/live';

export type { LiveEvent };

/** After a refused stream (503: the server's cap, or Redis away) the next try waits this long. */
const RETRY_REFUSED_MS = 30_000;
const EVENTS: Array<LiveEvent['type']> = ['board', 'numbers', 'draw', 'reload'];

/** Streams the changes of `drawIds` to `onEvent`; returns whether the stream is open. */
export function useLiveDraws(drawIds: readonly number[], onEvent: (e: LiveEvent) => void): boolean {
  const handler = useRef(onEvent);
  useLayoutEffect(() => {
    handler.current = onEvent;
  });
  const key = [...new Set(drawIds)]
    .filter((id) => Number.isSafeInteger(id) && id > 0)
    .sort((a, b) => a - b)
    .join(',');
  const [live, setLive] = useState(false);

  useEffect(() => {
    setLive(false);
    if (!key || typeof EventSource === 'undefined') return;
    const ids = key.split(',');
    const url = ids.length === 1 ? `${API_BASE}/draws/${ids[0]}/events` : `${API_BASE}/draws/events?ids=${key}`;
    let source: EventSource | null = null;
    let retry: number | undefined;
    let stopped = false;

    const connect = () => {
      const es = new EventSource(url);
      source = es;
      es.onopen = () => setLive(true);
      es.onerror = () => {
        setLive(false);
        // CONNECTING: the browser reconnects by itself. CLOSED: the server refused (an error
        // status); try again later, meanwhile the page polls.
        if (es.readyState === EventSource.CLOSED && !stopped) {
          es.close();
          retry = window.setTimeout(connect, RETRY_REFUSED_MS);
        }
      };
      for (const type of EVENTS) {
        es.addEventListener(type, (m) => {
          let data: unknown;
          try {
            data = JSON.parse((m as MessageEvent<string>).data);
          } catch {
            return;
          }
          handler.current({ type, data } as LiveEvent);
        });
      }
    };
    connect();
    return () => {
      stopped = true;
      window.clearTimeout(retry);
      source?.close();
    };
  }, [key]);

  return live;
}

/**
 * For pages that show a draw's figures from their own endpoint (home cards, /me/draw/{id}, the
 * console's buyers): `refresh` runs (at most about every 300 ms) after each change pushed for
 * `drawIds`; while the stream is down it runs every `pollMs` instead (the fallback poll).
 */
export function useLiveRefresh(drawIds: readonly number[], refresh: () => void, pollMs = 15_000) {
  const refreshRef = useRef(refresh);
  useLayoutEffect(() => {
    refreshRef.current = refresh;
  });
  const timer = useRef<number | undefined>(undefined);
  const boards = useRef(0);
  const live = useLiveDraws(drawIds, (e) => {
    // The first boards are the state at connection, which the page has just loaded; a later one
    // means the stream started again without resuming: something may have been missed.
    if (e.type === 'board' && ++boards.current <= drawIds.length) return;
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      refreshRef.current();
    }, 300);
  });
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const hasDraws = drawIds.length > 0;
  useEffect(() => {
    if (live || !hasDraws) return;
    const t = window.setInterval(() => {
      if (!document.hidden) refreshRef.current();
    }, pollMs);
    return () => window.clearInterval(t);
  }, [live, hasDraws, pollMs]);
  return live;
}
