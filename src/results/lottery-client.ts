import { z } from 'zod';
import { DomainError } from '../platform/errors';
import type { Logger } from '../platform/logger';
import { lotomaniaNumbersProblem } from './winner-rule';
import { saoPauloDate, saoPauloTime } from './time';

/**
 * The adapter for the public Lotomania results service (RULES W1, W7): the Caixa lottery portal's API,
 * `GET {LOTTERY_API_URL}/lotomania/{contest}` and `GET {LOTTERY_API_URL}/lotomania` (the latest),
 * answering JSON with `numero`, `dataApuracao` (DD/MM/YYYY) and `dezenasSorteadasOrdemSorteio`
 * (20 two-digit strings in draw order). Each request has a timeout; timeouts, network errors,
 * 429 and 5xx answers are retried with an exponential backoff; a body that is not a valid
 * result (not 20 distinct 00-99, another contest than asked) is refused, never guessed at.
 */

/** A contest that has been drawn: its number, when (20:00 Brasília on its date) and the 20 numbers in draw order. */
export interface LotteryResult {
  contest_number: number;
  drawn_at: Date;
  numbers: number[];
}

export type FetchOutcome =
  | ({ status: 'drawn' } & LotteryResult)
  /** The service does not have that contest's numbers yet (a future contest, or the draw is not published). */
  | { status: 'not_drawn'; contest_number: number | null; message: string }
  /**
   * The service published the contest (its date and its 20 numbers, sorted) but not the order they
   * were drawn in (`dezenasSorteadasOrdemSorteio`), which the winner rule needs (RULES W2): nothing
   * can be decided from it; an operator types the numbers in draw order (RULES W9).
   */
  | { status: 'no_draw_order'; contest_number: number; drawn_at: Date; sorted_numbers: number[]; message: string };

export interface LotteryClient {
  fetchContest(contest: number): Promise<FetchOutcome>;
  fetchLatest(): Promise<FetchOutcome>;
}

/** The results service could not be reached or answered nonsense (after the retries). */
export class LotteryServiceError extends DomainError {
  constructor(
    message: string,
    public readonly retryable: boolean,
  ) {
    super('unavailable', 'lottery_service_unavailable', message);
    this.name = 'LotteryServiceError';
  }
}

const Body = z.object({
  numero: z.coerce.number().int().positive(),
  dataApuracao: z
    .string()
    .regex(/^\d{2}\/\d{2}\/\d{4}$/)
    .nullish(),
  dezenasSorteadasOrdemSorteio: z.array(z.string().regex(/^\d{1,2}$/)).nullish(),
  /** The 20 numbers sorted: published with the contest; alone they cannot decide a draw. */
  listaDezenas: z.array(z.string().regex(/^\d{1,2}$/)).nullish(),
});

/**
 * 'DD/MM/YYYY' → that day at 20:00 in Brasília (time.ts: São Paulo's fixed offset): the
 * time Lotomania contests are held. Null when the date does not exist.
 */
export function parseDataApuracao(s: string): Date | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(s);
  if (!m) return null;
  const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = saoPauloTime(y, mo - 1, d, 20);
  const local = saoPauloDate(date);
  if (local.year !== y || local.month !== mo - 1 || local.day !== d) return null;
  return date;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createLotteryClient(opts: {
  apiUrl: string;
  timeoutMs: number;
  /** Retries after the first attempt (so `retries + 1` requests at most). */
  retries: number;
  /** First backoff; doubles on each retry (default 1 s). */
  retryBaseMs?: number;
  logger?: Logger;
  fetchImpl?: typeof fetch;
}): LotteryClient {
  const base = opts.apiUrl.replace(/\/$/, '');
  const doFetch = opts.fetchImpl ?? fetch;
  const retryBase = opts.retryBaseMs ?? 1000;

  /** One request: the parsed outcome, or a LotteryServiceError saying whether a retry may help. */
  async function once(url: string, asked: number | null): Promise<FetchOutcome> {
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, {
        headers: { accept: 'application/json', 'user-agent': 'cotaverde/1.0' },
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const err = e as Error;
      const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
      throw new LotteryServiceError(
        timedOut
          ? `O serviço de resultados não respondeu em ${opts.timeoutMs} ms.`
          : `Falha ao contatar o serviço de resultados: ${err.message}`,
        true,
      );
    }
    if (res.status === 404) return { status: 'not_drawn', contest_number: asked, message: notDrawnMessage(asked) };
    if (res.status === 429 || res.status >= 500) throw new LotteryServiceError(`O serviço de resultados respondeu ${res.status}.`, true);
    if (!res.ok) throw new LotteryServiceError(`O serviço de resultados respondeu ${res.status}.`, false);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new LotteryServiceError('O serviço de resultados respondeu algo que não é JSON.', false);
    }
    const parsed = Body.safeParse(json);
    if (!parsed.success) throw new LotteryServiceError('O serviço de resultados respondeu um corpo sem número de concurso válido.', false);
    const b = parsed.data;
    // Asked for a contest and given an older one (the service's "latest"): not drawn yet.
    if (asked !== null && b.numero < asked) return { status: 'not_drawn', contest_number: asked, message: notDrawnMessage(asked) };
    if (asked !== null && b.numero !== asked)
      throw new LotteryServiceError(`O serviço de resultados respondeu o concurso ${b.numero}, não o ${asked}.`, false);
    const dezenas = b.dezenasSorteadasOrdemSorteio ?? [];
    const sorted = (b.listaDezenas ?? []).map(Number);
    // Published (date and the 20 numbers) but without the draw order: not the same as not drawn.
    if (!dezenas.length && b.dataApuracao && sorted.length && !lotomaniaNumbersProblem(sorted)) {
      const heldAt = parseDataApuracao(b.dataApuracao);
      if (heldAt)
        return {
          status: 'no_draw_order',
          contest_number: b.numero,
          drawn_at: heldAt,
          sorted_numbers: [...sorted].sort((x, y) => x - y),
          message: `O serviço de resultados publicou o concurso ${b.numero} sem a ordem do sorteio (dezenasSorteadasOrdemSorteio), que a regra do vencedor exige.`,
        };
    }
    if (!dezenas.length || !b.dataApuracao) return { status: 'not_drawn', contest_number: b.numero, message: notDrawnMessage(b.numero) };
    const numbers = dezenas.map(Number);
    const problem = lotomaniaNumbersProblem(numbers);
    if (problem) throw new LotteryServiceError(`Resultado inválido do concurso ${b.numero}: ${problem}`, false);
    const drawnAt = parseDataApuracao(b.dataApuracao);
    if (!drawnAt) throw new LotteryServiceError(`Data de apuração inválida no concurso ${b.numero}: ${b.dataApuracao}.`, false);
    return { status: 'drawn', contest_number: b.numero, drawn_at: drawnAt, numbers };
  }

  async function withRetries(url: string, asked: number | null): Promise<FetchOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(url, asked);
      } catch (e) {
        const retryable = e instanceof LotteryServiceError && e.retryable;
        if (!retryable || attempt >= opts.retries) {
          opts.logger?.warn({ url, attempt, err: (e as Error).message }, 'lottery results service failed');
          throw e;
        }
        const wait = retryBase * 2 ** attempt;
        opts.logger?.info({ url, attempt, wait, err: (e as Error).message }, 'lottery results service: retrying');
        await sleep(wait);
      }
    }
  }

  return {
    fetchContest(contest) {
      if (!Number.isSafeInteger(contest) || contest <= 0) throw new LotteryServiceError('Número de concurso inválido.', false);
      return withRetries(`${base}/lotomania/${contest}`, contest);
    },
    fetchLatest() {
      return withRetries(`${base}/lotomania`, null);
    },
  };
}

function notDrawnMessage(contest: number | null) {
  return contest === null ? 'Ainda não há resultado publicado.' : `O concurso ${contest} ainda não foi sorteado (sem resultado publicado).`;
}
