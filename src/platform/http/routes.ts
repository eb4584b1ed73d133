import Router, { type RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import type { AppState } from './context';

/**
 * Who may call a route (RULES H1), declared beside the route where it is defined:
 * - `public`: anyone (the handler may still look at `ctx.state.user` or its own signed link);
 * - `customer`: any signed-in account (a bearer session), admins included;
 * - `admin`: an admin account read fresh from the database for this request, which also passes
 *   the deployment's admin rules (two factors where they are required);
 * - `ops`: the operations dashboard's own cookie session (ops/dashboard.ts), an admin's.
 */
export type Access = 'public' | 'customer' | 'admin' | 'ops';
export const ACCESS_LEVELS: readonly Access[] = ['public', 'customer', 'admin', 'ops'];

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type RouteHandler = RouterMiddleware<AppState>;

export interface RouteDeclaration {
  method: Method;
  /** The path below the routes' prefix, as @koa/router reads it (`/draws/:id`). */
  path: string;
  access: Access;
  handlers: RouteHandler[];
}

/**
 * A module's routes under one prefix: only declarations. Each method takes who may call the
 * route as its second argument; `mountRoutes` (the one way routes reach the app) turns them into
 * a case-sensitive, strict @koa/router whose every route runs its access check first, in its
 * own chain: there is no prefix middleware to miss.
 */
export class Routes {
  readonly declared: RouteDeclaration[] = [];

  constructor(readonly prefix: string) {}

  get(path: string, access: Access, ...handlers: RouteHandler[]) {
    return this.add('GET', path, access, handlers);
  }
  post(path: string, access: Access, ...handlers: RouteHandler[]) {
    return this.add('POST', path, access, handlers);
  }
  put(path: string, access: Access, ...handlers: RouteHandler[]) {
    return this.add('PUT', path, access, handlers);
  }
  patch(path: string, access: Access, ...handlers: RouteHandler[]) {
    return this.add('PATCH', path, access, handlers);
  }
  delete(path: string, access: Access, ...handlers: RouteHandler[]) {
    return this.add('DELETE', path, access, handlers);
  }

  private add(method: Method, path: string, access: Access, handlers: RouteHandler[]) {
    this.declared.push({ method, path, access, handlers });
    return this;
  }
}

/** Routes under `/api` (or another prefix). */
export function routes(prefix = '/api') {
  return new Routes(prefix);
}

/** Routes under `/api/admin`; each still declares its access (normally 'admin'). */
export function adminRoutes() {
  return new Routes('/api/admin');
}

/**
 * The checks behind the access levels. Each throws the domain error the error middleware answers
 * (401 unauthenticated, 403 forbidden) and, when it lets the caller in, leaves the caller in
 * `ctx.state.user`.
 */
export interface AccessControl {
  customer(ctx: Koa.ParameterizedContext<AppState>): Promise<void> | void;
  admin(ctx: Koa.ParameterizedContext<AppState>): Promise<void>;
  ops(ctx: Koa.ParameterizedContext<AppState>): Promise<void>;
}

/** One mounted route, as the app serves it: what the generated access tests walk. */
export interface MountedRoute {
  methods: string[];
  /** The full path pattern (`/api/admin/draws/:id`). */
  path: string;
  access: Access;
}

/** Called after a route's access check let the caller in, before its handlers (tests prove who reaches them). */
export type RouteProbe = (route: MountedRoute, ctx: Koa.ParameterizedContext<AppState>) => void;

export class RouteDeclarationError extends Error {}

/**
 * Builds the router of `routes`: case-sensitive and strict (one spelling of each path; the
 * canonical-path middleware answers 404 for the rest), every route's chain starting with its
 * access check. A route without a valid declaration stops the app from starting.
 */
export function buildRouter(
  r: Routes,
  control: AccessControl,
  o: { probe?: RouteProbe; onlyPublic?: boolean } = {},
): { router: Router<AppState>; mounted: MountedRoute[] } {
  if (!(r instanceof Routes))
    throw new RouteDeclarationError('Só rotas declaradas com routes()/adminRoutes() (src/platform/http/routes.ts) podem ser montadas.');
  const router = new Router<AppState>({ prefix: r.prefix, sensitive: true, strict: true });
  const mounted: MountedRoute[] = [];
  for (const d of r.declared) {
    const where = `${d.method} ${r.prefix}${d.path}`;
    if (!ACCESS_LEVELS.includes(d.access))
      throw new RouteDeclarationError(`A rota ${where} não declara quem pode chamá-la (${ACCESS_LEVELS.join(', ')}).`);
    if (o.onlyPublic && d.access !== 'public')
      throw new RouteDeclarationError(`A rota ${where} é montada antes da sessão: só pode ser 'public'.`);
    if (d.handlers.length === 0) throw new RouteDeclarationError(`A rota ${where} não tem handler.`);
    const route: MountedRoute = {
      methods: d.method === 'GET' ? ['GET', 'HEAD'] : [d.method],
      path: `${r.prefix}${d.path}`,
      access: d.access,
    };
    const check = accessCheck(d.access, control);
    const guard: RouteHandler = async (ctx, next) => {
      await check(ctx);
      o.probe?.(route, ctx);
      return next();
    };
    router.register(d.path, [d.method], [guard, ...d.handlers] as never);
    mounted.push(route);
  }
  // Nothing but declared routes: a router.use() or a raw registration on the built router would
  // run without a declaration.
  if (router.stack.length !== r.declared.length || router.stack.some((l) => l.methods.length === 0)) {
    throw new RouteDeclarationError(`O roteador ${r.prefix} tem camadas sem declaração de acesso.`);
  }
  return { router, mounted };
}

function accessCheck(access: Access, control: AccessControl): (ctx: Koa.ParameterizedContext<AppState>) => Promise<void> | void {
  switch (access) {
    case 'public':
      return () => {};
    case 'customer':
      return (ctx) => control.customer(ctx);
    case 'admin':
      return (ctx) => control.admin(ctx);
    case 'ops':
      return (ctx) => control.ops(ctx);
  }
}

/** The first path segments whose routes the canonical-path rule guards (in any spelling). */
const GUARDED_ROOTS = new Set(['api', 'ops']);
/** Percent-encodings that only re-spell a character a path could hold as is (or a separator). */
const NEEDLESS_ESCAPE = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2[de]|5f|7e|2f|5c|3b)/i;

/**
 * Whether `rawPath` (the request target's path, undecoded, as @koa/router matches it) is
 * not the one canonical spelling of an /api or /ops path: another letter case of the root,
 * doubled slashes, dot segments, `;` parameters, backslashes, percent-encoded letters, digits or
 * separators, a malformed escape, or a trailing slash. Such a path answers 404 for every route
 * (RULES H2), so no router, guard or prefix test ever sees a second spelling of a path.
 * Paths outside /api and /ops (the web app's pages and files) are the SPA's.
 */
export function nonCanonicalGuardedPath(rawPath: string): boolean {
  const root = guardedRoot(rawPath);
  if (!root) return false;
  if (root.spelled !== root.name) return true;
  if (rawPath.includes('//') || rawPath.includes(';') || rawPath.includes('\\')) return true;
  if (/%(?![0-9a-f]{2})/i.test(rawPath) || NEEDLESS_ESCAPE.test(rawPath)) return true;
  if (rawPath.split('/').some((seg) => seg === '.' || seg === '..')) return true;
  return rawPath.length > 1 && rawPath.endsWith('/');
}

/**
 * The guarded root (`api`, `ops`) a path falls under, read two ways (its first segment as
 * written, once decoded, and its first segment once dot segments are resolved), and how its first
 * segment was spelled.
 */
function guardedRoot(rawPath: string): { name: string; spelled: string } | null {
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v; // a malformed escape: judged on the raw text
    }
  };
  const segments: string[] = [];
  for (const s of decode(rawPath).replace(/\\/g, '/').split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const spelled = rawPath.split(/[/\\]/).find((s) => s !== '' && s !== '.' && s !== '..') ?? '';
  for (const candidate of [segments[0] ?? '', decode(spelled)]) {
    const name = candidate.split(';')[0].toLowerCase();
    if (GUARDED_ROOTS.has(name)) return { name, spelled };
  }
  return null;
}
