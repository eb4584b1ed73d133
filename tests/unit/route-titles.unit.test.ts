import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { formatTitle, ROUTE_TITLES, routeTitle } from '../../web/src/routeTitles';

const WEB = join(__dirname, '..', '..', 'web', 'src');
const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
const prop = (o: ts.ObjectLiteralExpression, name: string) =>
  o.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText() === name)?.initializer;

/** The full path of every route object in router.tsx ("/", "/numeros", "/me/draw/:id", "/admin/*"…). */
function routerPaths(): string[] {
  const sf = parse(join(WEB, 'router.tsx'));
  const out: string[] = [];
  const walk = (node: ts.Node, prefix: string) => {
    if (ts.isObjectLiteralExpression(node)) {
      const path = prop(node, 'path');
      const index = prop(node, 'index');
      let here = prefix;
      if (path && ts.isStringLiteral(path)) {
        here = `${prefix.replace(/\/$/, '')}/${path.text}`;
        out.push(here);
      } else if (index && index.kind === ts.SyntaxKind.TrueKeyword) out.push(prefix || '/');
      const children = prop(node, 'children');
      // A parent written 'admin/*' routes its children under /admin.
      if (children) ts.forEachChild(children, (c) => walk(c, here.replace(/\/\*$/, '')));
      return;
    }
    ts.forEachChild(node, (c) => walk(c, prefix));
  };
  const routes = sf.statements.find((s) => ts.isVariableStatement(s) && s.getText().includes('export const routes'));
  if (!routes) throw new Error('router.tsx: no `export const routes`');
  walk(routes, '');
  return out.map((p) => (p === '/*' ? '*' : p));
}

/** The path of every console page in pages/admin/adminPages.ts. */
function adminPaths(): string[] {
  const sf = parse(join(WEB, 'pages', 'admin', 'adminPages.ts'));
  const out: string[] = [];
  const walk = (node: ts.Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const path = prop(node, 'path');
      if (path && ts.isStringLiteral(path)) out.push(path.text);
    }
    ts.forEachChild(node, walk);
  };
  walk(sf);
  return out;
}

describe('tab titles by route (web/src/routeTitles.ts)', () => {
  const patterns = ROUTE_TITLES.map(([p]) => p);

  it('reads the routes of router.tsx and the console pages', () => {
    expect(routerPaths()).toEqual(expect.arrayContaining(['/', '/numeros', '/conta', '/me/draw/:id', '/admin/*', '*']));
    expect(adminPaths()).toEqual(expect.arrayContaining(['/admin', '/admin/pagamentos']));
  });

  it('has a title for every route of router.tsx and every page of the admin console', () => {
    const missing = [...routerPaths(), ...adminPaths()].filter((p) => !patterns.includes(p));
    expect(missing).toEqual([]);
  });

  it('gives every page but the home page its own title, and no two routes the same one', () => {
    const titles = ROUTE_TITLES.filter(([p]) => p !== '/').map(([, t]) => t);
    expect(titles.every((t) => typeof t === 'string' && t.length > 0)).toBe(true);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it('matches addresses to titles, specific patterns before general ones', () => {
    expect(routeTitle('/')).toBeNull();
    expect(routeTitle('/numeros')).toBe('Escolha seus números');
    expect(routeTitle('/comprar/EBOOK-1')).toBe('E-book');
    expect(routeTitle('/resultado/7')).toBe('Resultado do sorteio');
    expect(routeTitle('/me/draw/7')).toBe('Sorteio');
    expect(routeTitle('/admin')).toBe('Painel administrativo · Admin');
    expect(routeTitle('/admin/')).toBe('Painel administrativo · Admin');
    expect(routeTitle('/admin/pagamentos')).toBe('Pagamentos para revisar');
    expect(routeTitle('/admin/nada')).toBe('Página não encontrada · Admin');
    expect(routeTitle('/nada/mesmo')).toBe('Página não encontrada');
  });

  it('writes "<page> — Cota Verde", and the brand with its tagline for the home page', () => {
    expect(formatTitle('Números', 'Cota Verde')).toBe('Números — Cota Verde');
    expect(formatTitle(null, 'Cota Verde')).toBe('Cota Verde · E-books e sorteios');
  });
});
