import type { TestContext } from '../helpers/context';
import { jsonOrText } from '../helpers/http';
import { OPS_COOKIE } from '../../src/ops/service';

/** A request under the app without following redirects: status, headers, text and body (JSON when it parses). */
export async function rawRequest(t: TestContext, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(t.url + path, { method, headers, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: jsonOrText(text) };
}

/** POST /api/admin/ops/link as `token`, then follows the signed link: both answers. */
export async function openOpsLink(t: TestContext, token: string) {
  const link = await t.api('POST', '/api/admin/ops/link', { token, body: {} });
  const u = link.status === 200 ? new URL(link.body.url) : null;
  const login = u ? await rawRequest(t, u.pathname + u.search) : null;
  return { link, login };
}

/** The ops session cookie a Set-Cookie header carries (throws when there is none). */
export function opsCookieOf(setCookie: string | null): string {
  const m = new RegExp(`${OPS_COOKIE}=([^;]*)`).exec(setCookie ?? '');
  if (!m || !m[1]) throw new Error(`no ${OPS_COOKIE} cookie in ${setCookie}`);
  return m[1];
}
