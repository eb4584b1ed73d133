import { z } from 'zod';
import { errors } from './errors';
import { looksNumeric, parseId } from '../shared/validation';

/**
 * Server-side zod setup, in effect as soon as any schema module imports this
 * file (every id schema does; services.ts imports it too):
 *
 * - zod's own pt-BR locale answers every issue nobody wrote a message for, so no
 *   English text ("Too big: expected…") can ever reach an answer;
 * - `customError` replaces the commonest of those with plainer Portuguese. A
 *   message given on the schema itself (the spec's texts) still wins over both.
 */
const plural = (n: number | bigint, one: string, many: string) => (Number(n) === 1 ? one : many);

export const ptBrIssueMessage: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'Campo obrigatório.';
      if (iss.expected === 'number' || iss.expected === 'int') return 'Informe um número.';
      if (iss.expected === 'string') return 'Informe um texto.';
      if (iss.expected === 'boolean') return 'Informe verdadeiro ou falso.';
      if (iss.expected === 'array') return 'Informe uma lista.';
      if (iss.expected === 'object') return 'Envie um objeto JSON.';
      return undefined;
    case 'too_big': {
      const max = iss.maximum;
      if (iss.origin === 'string')
        return iss.exact ? `Use exatamente ${max} caracteres.` : `Use no máximo ${max} ${plural(max, 'caractere', 'caracteres')}.`;
      if (iss.origin === 'array' || iss.origin === 'set') return `Informe no máximo ${max} ${plural(max, 'item', 'itens')}.`;
      if (iss.origin === 'number' || iss.origin === 'int' || iss.origin === 'bigint')
        return iss.inclusive === false ? `O valor deve ser menor que ${max}.` : `O valor máximo é ${max}.`;
      return undefined;
    }
    case 'too_small': {
      const min = iss.minimum;
      if (iss.origin === 'string') {
        if (iss.exact) return `Use exatamente ${min} caracteres.`;
        return Number(min) <= 1 ? 'Campo obrigatório.' : `Use pelo menos ${min} caracteres.`;
      }
      if (iss.origin === 'array' || iss.origin === 'set') return `Informe pelo menos ${min} ${plural(min, 'item', 'itens')}.`;
      if (iss.origin === 'number' || iss.origin === 'int' || iss.origin === 'bigint')
        return iss.inclusive === false ? `O valor deve ser maior que ${min}.` : `O valor mínimo é ${min}.`;
      return undefined;
    }
    case 'invalid_value':
      return iss.values.length ? `Valor inválido. Use: ${iss.values.map(String).join(', ')}.` : 'Valor inválido.';
    case 'invalid_format':
      if (iss.format === 'email') return 'E-mail inválido.';
      return 'Formato inválido.';
    case 'not_multiple_of':
      return `O valor deve ser múltiplo de ${iss.divisor}.`;
    case 'unrecognized_keys':
      return `${plural(iss.keys.length, 'Campo não permitido', 'Campos não permitidos')}: ${iss.keys.join(', ')}.`;
    case 'invalid_union':
      return 'Valor inválido.';
    default:
      return undefined;
  }
};

z.config(z.locales.ptBR());
z.config({ customError: ptBrIssueMessage });

/**
 * The one id rule (RULES H4) as a zod schema for paths, queries and bodies:
 * decimal integers ≥ 1 only (`0x0f`, `1e3`, `01`, `-1`, `1.0`, `0` and numbers
 * beyond 2^53 are refused with `message`). See parseId in shared/validation.
 */
export function Id(message = 'Identificador inválido.') {
  return z.unknown().transform((v, ctx) => {
    const id = parseId(v);
    if (id === null) {
      ctx.addIssue({ code: 'custom', message, input: v });
      return z.NEVER;
    }
    return id;
  });
}

/**
 * A path segment that is an id or a name (an e-book's id or SKU): one that
 * reads as a number must follow the id rule (400 otherwise), anything else is
 * passed on as a name.
 */
export function idOrName(v: string, message = 'Identificador inválido.', field = 'id'): string {
  if (looksNumeric(v) && parseId(v) === null)
    throw errors.validation('validation_error', message, { details: [{ path: field, message, code: 'custom' }] });
  return v;
}

/** The `limit` of a paginated list: an integer 1..max, `dflt` when absent (messages in Portuguese). */
export function PageLimit(max: number, dflt: number) {
  return z.coerce
    .number({ error: 'O limite deve ser um número.' })
    .int('O limite deve ser um número inteiro.')
    .min(1, 'O limite mínimo é 1.')
    .max(max, `O limite máximo é ${max}.`)
    .default(dflt);
}

/** The `offset` of a paginated list: an integer ≥ 0 (≤ `max.value` when given), 0 when absent. */
export function PageOffset(max?: { value: number; message: string }) {
  const n = z.coerce
    .number({ error: 'O deslocamento deve ser um número.' })
    .int('O deslocamento deve ser um número inteiro.')
    .min(0, 'O deslocamento não pode ser negativo.');
  return (max ? n.max(max.value, max.message) : n).default(0);
}
