import { matchPath } from 'react-router-dom';

/**
 * The tab title of every page, by route pattern (issue 26: "every page's tab title is Cota Verde").
 * One list, read by the layout (useRouteTitle in components/useDocumentTitle.ts) on every
 * navigation, so that a page gets its title without setting it itself; pages whose title depends
 * on their data (an e-book's name, a draw's number) refine it through useDocumentTitle, which wins
 * while the page is mounted. The titles are the ones the pages set for themselves (many still call
 * useDocumentTitle with the same text): a page's tab is named before its lazily loaded chunk arrives. Pure (no window/document): the server renderer can read it too.
 *
 * Every route of router.tsx and every page of pages/admin/adminPages.ts has an entry here
 * (tests/unit/route-titles.unit.test.ts). The admin labels are repeated rather than imported:
 * adminPages.ts brings the console's lazy chunks and icons, which must stay out of a store visit.
 */
export const ROUTE_TITLES: ReadonlyArray<readonly [pattern: string, title: string | null]> = [
  // null: the home page, whose title is the brand and its tagline.
  ['/', null],
  ['/login', 'Entrar'],
  ['/cadastro', 'Criar conta'],
  ['/redefinir-senha', 'Redefinir senha'],
  ['/termos', 'Termos de Uso'],
  ['/privacidade', 'Política de Privacidade'],
  ['/jogo-responsavel', 'Jogo Responsável'],
  ['/numeros', 'Escolha seus números'],
  ['/infoprodutos', 'Infoprodutos'],
  // Refined by the page with the e-book's name, the draw's number.
  ['/comprar/:sku', 'E-book'],
  ['/resultado/:id', 'Resultado do sorteio'],
  ['/confirmar-email-admin', 'Confirmar e-mail de administração'],
  ['/conta', 'Área do cliente'],
  ['/me/draw/:id', 'Sorteio'],
  // The console: each page's heading.
  ['/admin', 'Painel administrativo · Admin'],
  ['/admin/sorteios', 'Sorteios realizados'],
  ['/admin/clientes', 'Clientes com saldo ativo'],
  ['/admin/vencedores', 'Vencedores'],
  ['/admin/AdminClientesUser', 'Cadastro de Clientes'],
  ['/admin/sorteiosAtivos', 'Sorteio Ativo — Compradores'],
  ['/admin/infoproducts', 'Cadastro de Infoprodutos'],
  ['/admin/pagamentos', 'Pagamentos para revisar'],
  ['/admin/auditoria', 'Auditoria · Admin'],
  ['/admin/*', 'Página não encontrada · Admin'],
  ['*', 'Página não encontrada'],
];

/** "Entrar — Cota Verde"; the brand and its tagline ("Cota Verde · E-books e sorteios") when there is no page title. */
export const formatTitle = (title: string | null | undefined, brand: string) =>
  title ? `${title} — ${brand}` : `${brand} · E-books e sorteios`;

/** The title of a path: the first pattern of ROUTE_TITLES that matches it (they go from specific to general). */
export function routeTitle(pathname: string): string | null {
  for (const [pattern, title] of ROUTE_TITLES) {
    if (matchPath({ path: pattern, end: true }, pathname)) return title;
  }
  return null;
}
