import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of the Caixa lottery portal's Lotomania API (`GET /lotomania/{contest}`,
 * `GET /lotomania` for the latest), serving the 100 real contests 2600-2699 of
 * tests/fixtures/lotomania-2600-2699.json (dated every Mon/Wed/Fri from 2024-08-02, as
 * DD/MM/YYYY) plus any contest a test adds. Tests script failures: the next N answers as a
 * status, a slow answer, a malformed body.
 */
export interface FakeContest {
  numbers: string[];
  /** DD/MM/YYYY */
  date: string;
  /** Published without `dezenasSorteadasOrdemSorteio` (only the sorted `listaDezenas`), as the portal sometimes does. */
  withoutDrawOrder?: boolean;
}

export interface FakeLottery {
  url: string;
  contests: Map<number, FakeContest>;
  /** Requests seen, as paths. */
  requests: string[];
  /**
   * Adds (or replaces) a contest; `date` a Date (its day in Brasília) or DD/MM/YYYY. With
   * `withoutDrawOrder` the answer leaves out the draw-order field (the numbers only sorted).
   */
  add(contest: number, numbers: Array<number | string>, date: Date | string, o?: { withoutDrawOrder?: boolean }): void;
  /** The next `times` requests answer `status` (with a small JSON error body). */
  failNext(times: number, status?: number): void;
  /** The next `times` requests wait `ms` before answering. */
  slowNext(times: number, ms: number): void;
  /** The next `times` requests answer this raw body with status 200. */
  malformedNext(times: number, body: string): void;
  close(): Promise<void>;
}

export const REAL_CONTESTS: Record<string, string[]> = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../fixtures/lotomania-2600-2699.json'), 'utf8'),
);

/** DD/MM/YYYY of a date's day in Brasília (UTC−3). */
export function brDate(d: Date): string {
  const b = new Date(d.getTime() - 3 * 3600_000);
  return `${String(b.getUTCDate()).padStart(2, '0')}/${String(b.getUTCMonth() + 1).padStart(2, '0')}/${b.getUTCFullYear()}`;
}

/** Dates for the real contests: Mon/Wed/Fri in sequence from Friday 2024-08-02 (illustrative). */
function realDates(): Map<number, string> {
  const out = new Map<number, string>();
  const d = new Date(Date.UTC(2024, 7, 2, 23));
  for (let c = 2600; c <= 2699; c++) {
    out.set(c, brDate(d));
    do d.setUTCDate(d.getUTCDate() + 1);
    while (![1, 3, 5].includes(d.getUTCDay()));
  }
  return out;
}

export async function startFakeLottery(): Promise<FakeLottery> {
  const contests = new Map<number, FakeContest>();
  const dates = realDates();
  for (const [c, numbers] of Object.entries(REAL_CONTESTS)) contests.set(Number(c), { numbers, date: dates.get(Number(c))! });
  const requests: string[] = [];
  const script: Array<{ kind: 'fail'; status: number } | { kind: 'slow'; ms: number } | { kind: 'malformed'; body: string }> = [];

  const body = (c: number, x: FakeContest) => ({
    tipoJogo: 'LOTOMANIA',
    numero: c,
    dataApuracao: x.date,
    listaDezenas: [...x.numbers].sort(),
    ...(x.withoutDrawOrder ? {} : { dezenasSorteadasOrdemSorteio: x.numbers }),
    numeroConcursoProximo: c + 1,
  });

  const server = http.createServer(async (req, res) => {
    const url = req.url ?? '';
    requests.push(url);
    const step = script.shift();
    const send = (status: number, payload: unknown, raw = false) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(raw ? String(payload) : JSON.stringify(payload));
    };
    if (step?.kind === 'fail') return send(step.status, { mensagem: 'erro interno' });
    if (step?.kind === 'malformed') return send(200, step.body, true);
    if (step?.kind === 'slow') await new Promise((r) => setTimeout(r, step.ms));
    const m = /^\/lotomania(?:\/(\d+))?\/?$/.exec(url.split('?')[0]);
    if (!m) return send(404, { mensagem: 'não encontrado' });
    if (m[1] === undefined) {
      const latest = Math.max(...contests.keys());
      return send(200, body(latest, contests.get(latest)!));
    }
    const c = Number(m[1]);
    const x = contests.get(c);
    // The portal answers a contest it does not have yet with the shape of a result without numbers.
    if (!x) return send(200, { tipoJogo: 'LOTOMANIA', numero: c, dataApuracao: null, dezenasSorteadasOrdemSorteio: [], listaDezenas: [] });
    return send(200, body(c, x));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    contests,
    requests,
    add(contest, numbers, date, o = {}) {
      contests.set(contest, {
        numbers: numbers.map((n) => String(n).padStart(2, '0')),
        date: typeof date === 'string' ? date : brDate(date),
        withoutDrawOrder: o.withoutDrawOrder,
      });
    },
    failNext(times, status = 500) {
      for (let i = 0; i < times; i++) script.push({ kind: 'fail', status });
    },
    slowNext(times, ms) {
      for (let i = 0; i < times; i++) script.push({ kind: 'slow', ms });
    },
    malformedNext(times, raw) {
      for (let i = 0; i < times; i++) script.push({ kind: 'malformed', body: raw });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
