import { errorMessage } from '../../../api/client';

/**
 * The text of a failed admin action: the screen's own words (account spec §8, e.g. 'Não foi
 * possível excluir.') followed by the server's reason when it sent one (e.g. the 409 of a draw
 * with sales), so the person learns both what failed and why.
 */
export function failureText(fallback: string, err: unknown): string {
  const reason = errorMessage(err, '');
  if (!reason || reason === fallback) return fallback;
  return `${fallback} ${reason}`;
}
