import { z } from 'zod';
import { lotomaniaNumbersProblem } from './winner-rule';

/** What the results commands accept (CLI, admin API, the job): contests, the 20 numbers, dates. */

export const ContestNumber = z
  .unknown()
  .superRefine((v, ctx) => {
    if (v === undefined || v === null || v === '') ctx.addIssue({ code: 'custom', message: 'Informe o número do concurso.' });
  })
  .pipe(
    z.coerce
      .number({ error: 'O número do concurso deve ser um número.' })
      .int('O número do concurso deve ser inteiro.')
      .min(1, 'O número do concurso deve ser positivo.')
      .max(1_000_000, 'O número do concurso é alto demais.'),
  );

/** The 20 numbers in draw order: an array (numbers or "07" texts) or one text "07 64 02 …" (spaces, commas, hyphens). */
export const DrawnNumbers = z.unknown().transform((v, ctx): number[] => {
  const parts = typeof v === 'string' ? v.split(/[\s,;-]+/).filter(Boolean) : Array.isArray(v) ? v : null;
  if (!parts) {
    ctx.addIssue({ code: 'custom', message: 'Informe os 20 números sorteados, na ordem do sorteio.' });
    return z.NEVER;
  }
  const nums = parts.map((p) => (typeof p === 'number' ? p : typeof p === 'string' && /^\d{1,2}$/.test(p.trim()) ? Number(p) : NaN));
  if (nums.some((n) => !Number.isInteger(n))) {
    ctx.addIssue({ code: 'custom', message: 'Cada número deve estar entre 00 e 99.' });
    return z.NEVER;
  }
  const problem = lotomaniaNumbersProblem(nums);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  return nums;
});

export const DrawnAt = z.coerce.date({ error: 'Data do concurso inválida (use ISO 8601, ex.: 2026-11-23T23:00:00Z).' });

export const RecordCommand = z.object(
  {
    contest_number: ContestNumber,
    numbers: DrawnNumbers,
    drawn_at: DrawnAt.optional(),
    /** Records a contest whose number and date disagree with the stored contests' order. */
    force: z.boolean({ error: 'force deve ser verdadeiro ou falso.' }).optional(),
  },
  { error: 'Envie um objeto JSON.' },
);
/** Numbers typed in (CLI `results record`): the contest's real date is required (RULES W1). */
export const TypedRecordCommand = RecordCommand.extend({
  drawn_at: z.coerce.date({ error: 'Informe a data do concurso (--drawn-at, ISO 8601, ex.: 2026-11-23T23:00:00Z).' }),
});
export const CorrectCommand = RecordCommand.extend({
  reason: z
    .string({ error: 'Informe o motivo da correção.' })
    .trim()
    .min(3, 'Informe o motivo da correção.')
    .max(500, 'O motivo pode ter no máximo 500 caracteres.'),
});
export const FetchCommand = z.object({ contest_number: ContestNumber.optional() }, { error: 'Envie um objeto JSON.' });
