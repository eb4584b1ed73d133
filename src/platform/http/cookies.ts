/**
 * Reading and writing the app's own cookies (HttpOnly, a narrow Path). Written by hand rather
 * than through Koa's `ctx.cookies`: that one refuses a `Secure` cookie when Koa itself did not see
 * HTTPS (TLS ended at a proxy that is not trusted for X-Forwarded-Proto), while the browser, which
 * is what the flag is for, did.
 */

/** The value of cookie `name` in a Cookie header, if any. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  path: string;
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
  /** Seconds; absent = a session cookie (gone when the browser closes), 0 = delete it. */
  maxAgeS?: number;
}

/** A Set-Cookie value for an HttpOnly cookie. */
export function setCookieHeader(name: string, value: string, o: CookieOptions): string {
  return [
    `${name}=${value}`,
    `Path=${o.path}`,
    ...(o.maxAgeS !== undefined ? [`Max-Age=${o.maxAgeS}`] : []),
    'HttpOnly',
    `SameSite=${o.sameSite}`,
    ...(o.secure ? ['Secure'] : []),
  ].join('; ');
}
