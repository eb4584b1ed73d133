/**
 * The only module that talks HTTP. It knows the API base URL, the session token and the server's
 * error shape `{error: "snake_code", message: "pt-BR text", details?: [{path, message}]}`.
 * Pages and hooks call `api.get/post/...`; none of them calls fetch directly.
 */

import { API_BASE } from './base';
import { dispositionFilename } from './disposition';

export { API_BASE, dispositionFilename };

export interface ErrorDetail {
  path: string;
  message: string;
}

export type ApiErrorCode =
  'network_error' | 'server_unavailable' | 'http_error' | 'html_response' | 'missing_token' | 'profile_unavailable' | (string & {});

/** Every failed call rejects with an ApiError. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly details: ErrorDetail[];
  /** True when `message` is the server's own pt-BR text (safe to show as is). */
  readonly fromServer: boolean;
  /** The parsed error body, for fields beyond the common shape (e.g. `conflicts` of a 409). */
  readonly body: unknown;

  constructor(
    status: number,
    code: ApiErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; fromServer?: boolean; body?: unknown } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = opts.details ?? [];
    this.fromServer = opts.fromServer ?? false;
    this.body = opts.body;
  }
}

const NETWORK_MESSAGE = 'Sem conexão com o servidor. Verifique sua internet e tente novamente.';
const UNAVAILABLE_MESSAGE = 'O servidor não está respondendo agora. Tente novamente em instantes.';
const CONNECTION_CODES: ApiErrorCode[] = ['network_error', 'server_unavailable', 'html_response'];

/**
 * The text to show a person for a failed call: the server's own message when it sent one,
 * the connection message when the server could not be reached, otherwise the screen's fallback.
 */
export function errorMessage(err: unknown, fallback: string): string {
  if (err instanceof ApiError) {
    if (err.fromServer && err.message) return err.message;
    if (CONNECTION_CODES.includes(err.code)) return err.message;
  }
  return fallback;
}

/* ------------------------------------------------------------------------------------------ */
/* Token storage (storefront spec §4 and §7)                                                  */
/* ------------------------------------------------------------------------------------------ */

export const TOKEN_KEY = 'ns_auth_token';
const LEGACY_KEYS = ['token', 'access_token'] as const;
const COOKIE_NAMES = ['token', 'jwt'] as const;

/** Removes quotes, a 'Bearer ' prefix and whitespace; empty → null. */
export function cleanToken(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const t = String(raw)
    .trim()
    .replace(/^["']+|["']+$/g, '')
    .trim()
    .replace(/^Bearer\s+/i, '')
    .replace(/["'\s]+/g, '');
  if (!t || t === 'null' || t === 'undefined') return null;
  return t;
}

function storages(): Storage[] {
  const out: Storage[] = [];
  // Access to storage throws in some privacy modes; the session then simply is not remembered.
  try {
    out.push(window.localStorage);
  } catch {
    /* unavailable */
  }
  try {
    out.push(window.sessionStorage);
  } catch {
    /* unavailable */
  }
  return out;
}

function readCookie(name: string): string | null {
  if (typeof document === 'undefined') return null;
  const hit = document.cookie.split(';').find((c) => c.trim().startsWith(`${name}=`));
  if (!hit) return null;
  try {
    return decodeURIComponent(hit.trim().slice(name.length + 1));
  } catch {
    return null;
  }
}

/** Used only when browser storage is unavailable (some privacy modes). */
let memoryToken: string | null = null;

export const tokenStore = {
  /** Local storage first, then session storage (current key, then legacy keys), then cookies. */
  get(): string | null {
    for (const s of storages()) {
      for (const key of [TOKEN_KEY, ...LEGACY_KEYS]) {
        let value: string | null = null;
        try {
          value = s.getItem(key);
        } catch {
          value = null;
        }
        const t = cleanToken(value);
        if (t) return t;
      }
    }
    for (const name of COOKIE_NAMES) {
      const t = cleanToken(readCookie(name));
      if (t) return t;
    }
    return memoryToken;
  },

  /** remember=true keeps the token across browser restarts; false only for this tab's session. */
  set(token: string, remember = true): void {
    const t = cleanToken(token);
    tokenStore.clear();
    if (!t) return;
    try {
      (remember ? window.localStorage : window.sessionStorage).setItem(TOKEN_KEY, t);
    } catch {
      /* storage unavailable: the token lives only until the page is reloaded */
      memoryToken = t;
    }
  },

  clear(): void {
    memoryToken = null;
    for (const s of storages()) {
      for (const key of [TOKEN_KEY, ...LEGACY_KEYS]) {
        try {
          s.removeItem(key);
        } catch {
          /* ignore */
        }
      }
    }
    if (typeof document !== 'undefined') {
      for (const name of COOKIE_NAMES) {
        if (readCookie(name) !== null) document.cookie = `${name}=; Max-Age=0; path=/`;
      }
    }
  },
};

const currentToken = () => tokenStore.get();

/* ------------------------------------------------------------------------------------------ */
/* Requests                                                                                   */
/* ------------------------------------------------------------------------------------------ */

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Send the stored token (default true). */
  auth?: boolean;
}

/** '/auth/login' and '/api/auth/login' both become `${API_BASE}/auth/login` (no doubled /api). */
export function apiUrl(path: string, query?: Query): string {
  let p = path.startsWith('/') ? path : `/${path}`;
  if (API_BASE.endsWith('/api') && (p === '/api' || p.startsWith('/api/'))) p = p.slice(4) || '/';
  let url = `${API_BASE}${p}`;
  if (query) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) qs.append(k, String(v));
    const s = qs.toString();
    if (s) url += (url.includes('?') ? '&' : '?') + s;
  }
  return url;
}

function isErrorDetail(d: unknown): d is ErrorDetail {
  return !!d && typeof d === 'object' && typeof (d as ErrorDetail).message === 'string';
}

function toApiError(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const b = body as { error?: unknown; message?: unknown; details?: unknown };
    const code = typeof b.error === 'string' && b.error ? b.error : 'http_error';
    const details = Array.isArray(b.details)
      ? b.details.filter(isErrorDetail).map((d) => ({ path: String(d.path ?? ''), message: d.message }))
      : [];
    if (typeof b.message === 'string' && b.message.trim()) {
      return new ApiError(status, code, b.message, { details, fromServer: true, body });
    }
    return new ApiError(status, code, `HTTP ${status}`, { details, body });
  }
  return new ApiError(status, 'http_error', `HTTP ${status}`);
}

/* ------------------------------------------------------------------------------------------ */
/* Server refusals other modules react to                                                     */
/* ------------------------------------------------------------------------------------------ */

type ErrorListener = (err: ApiError) => void;
const errorListeners = new Set<ErrorListener>();

/**
 * Calls `listener` with every error answer of the server (4xx/5xx with our JSON body), whatever
 * screen made the call; returns the unsubscribe function. The admin console listens for
 * 403 mfa_enrollment_required (an administrator who must turn two-factor sign-in on first).
 */
export function onApiError(listener: ErrorListener): () => void {
  errorListeners.add(listener);
  return () => void errorListeners.delete(listener);
}

function refusal(err: ApiError): ApiError {
  for (const listener of errorListeners) {
    try {
      listener(err);
    } catch {
      /* a listener's failure never changes the caller's error */
    }
  }
  return err;
}

export async function request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.auth !== false) {
    const token = currentToken();
    if (token) headers.Authorization = `Bearer ${token}`;
  }

  let res: Response;
  try {
    res = await fetch(apiUrl(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      credentials: 'include',
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', NETWORK_MESSAGE);
  }

  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  const text = await res.text().catch(() => '');
  let body: unknown = undefined;
  if (text) {
    if (type.includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    } else if (type.includes('text/html')) {
      // A page instead of JSON: the base URL points at the web server, not at the API.
      if (res.ok) {
        throw new ApiError(res.status, 'html_response', 'Falha ao carregar (resposta HTML do servidor). Verifique a URL base.');
      }
      body = undefined;
    } else {
      body = text;
    }
  }
  if (!res.ok) {
    // A 5xx without our JSON body comes from a gateway or proxy in front of a stopped API.
    if (res.status >= 500 && (body === undefined || typeof body !== 'object')) {
      throw new ApiError(res.status, 'server_unavailable', UNAVAILABLE_MESSAGE);
    }
    throw refusal(toApiError(res.status, body));
  }
  return body as T;
}

/** A file answer (e.g. GET /api/me/export): its bytes and the name the server gave it. */
export interface FileResponse {
  blob: Blob;
  /** From Content-Disposition (filename* or filename); null when the server named none. */
  filename: string | null;
}

/** GET of a file with the session token (downloads that need the bearer header); errors as in request(). */
export async function requestFile(path: string, opts: Omit<RequestOptions, 'body'> = {}): Promise<FileResponse> {
  const headers: Record<string, string> = {};
  if (opts.auth !== false) {
    const token = currentToken();
    if (token) headers.Authorization = `Bearer ${token}`;
  }
  let res: Response;
  try {
    res = await fetch(apiUrl(path, opts.query), { method: 'GET', headers, credentials: 'include', signal: opts.signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', NETWORK_MESSAGE);
  }
  if (!res.ok) {
    const type = res.headers.get('content-type') ?? '';
    const text = await res.text().catch(() => '');
    let body: unknown = undefined;
    if (type.includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (res.status >= 500 && (body === undefined || typeof body !== 'object')) {
      throw new ApiError(res.status, 'server_unavailable', UNAVAILABLE_MESSAGE);
    }
    throw refusal(toApiError(res.status, body));
  }
  if ((res.headers.get('content-type') ?? '').includes('text/html')) {
    throw new ApiError(res.status, 'html_response', 'Falha ao carregar (resposta HTML do servidor). Verifique a URL base.');
  }
  return { blob: await res.blob(), filename: dispositionFilename(res.headers.get('content-disposition')) };
}

/**
 * POST of one file as multipart/form-data (field `file`), with the session token; the answer and
 * the errors as in request() (e.g. 413 `{error: 'payload_too_large', message}`).
 */
export async function uploadFile<T = unknown>(path: string, file: Blob, filename: string, opts: { signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = currentToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const form = new FormData();
  form.append('file', file, filename);
  let res: Response;
  try {
    res = await fetch(apiUrl(path), { method: 'POST', headers, body: form, credentials: 'include', signal: opts.signal });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', NETWORK_MESSAGE);
  }
  const text = await res.text().catch(() => '');
  let body: unknown = undefined;
  if (text && (res.headers.get('content-type') ?? '').includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!res.ok) {
    if (res.status >= 500 && (body === undefined || typeof body !== 'object'))
      throw new ApiError(res.status, 'server_unavailable', UNAVAILABLE_MESSAGE);
    if (res.status === 413 && (body === undefined || typeof body !== 'object'))
      throw new ApiError(413, 'payload_too_large', 'Arquivo grande demais.');
    throw refusal(toApiError(res.status, body));
  }
  return body as T;
}

export const api = {
  get: <T = unknown>(path: string, opts?: Omit<RequestOptions, 'body'>) => request<T>('GET', path, opts),
  post: <T = unknown>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'body'>) => request<T>('POST', path, { ...opts, body }),
  put: <T = unknown>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'body'>) => request<T>('PUT', path, { ...opts, body }),
  patch: <T = unknown>(path: string, body?: unknown, opts?: Omit<RequestOptions, 'body'>) => request<T>('PATCH', path, { ...opts, body }),
  delete: <T = unknown>(path: string, opts?: Omit<RequestOptions, 'body'>) => request<T>('DELETE', path, opts),
  file: (path: string, opts?: Omit<RequestOptions, 'body'>) => requestFile(path, opts),
  upload: <T = unknown>(path: string, file: Blob, filename: string, opts?: { signal?: AbortSignal }) =>
    uploadFile<T>(path, file, filename, opts),
};
