import { useEffect, useState } from 'react';

/** "mm:ss" of what is left until `until` (never negative; minutes may pass 59: "75:00"). */
export function formatCountdown(leftMs: number): string {
  const s = Math.max(0, Math.ceil(leftMs / 1000));
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** Milliseconds left until `untilMs`, updated every second while `active`; null without a time. */
export function useTimeLeft(untilMs: number | null, active: boolean): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active || untilMs == null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active, untilMs]);
  return untilMs == null ? null : Math.max(0, untilMs - now);
}
