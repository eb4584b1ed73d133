/**
 * Domain errors carry a code and a pt-BR message, never an HTTP status: the
 * HTTP error middleware maps the kind to a status (see http/errors.ts).
 */
export type ErrorKind = 'validation' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited' | 'unavailable';

export class DomainError extends Error {
  constructor(
    public readonly kind: ErrorKind,
    public readonly code: string,
    message: string,
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const errors = {
  validation: (code: string, message: string, extra?: Record<string, unknown>) => new DomainError('validation', code, message, extra),
  unauthenticated: (message = 'Faça login para continuar.') => new DomainError('unauthenticated', 'unauthenticated', message),
  forbidden: (message = 'Você não tem permissão para esta ação.') => new DomainError('forbidden', 'forbidden', message),
  notFound: (code = 'not_found', message = 'Não encontrado.') => new DomainError('not_found', code, message),
  conflict: (code: string, message: string, extra?: Record<string, unknown>) => new DomainError('conflict', code, message, extra),
  rateLimited: (retryAfterSeconds: number) =>
    new DomainError('rate_limited', 'rate_limited', 'Muitas tentativas. Aguarde um pouco e tente novamente.', {
      retry_after: retryAfterSeconds,
    }),
};

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}
