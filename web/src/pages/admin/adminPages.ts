import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import {
  AuditOutlined,
  BookOutlined,
  CreditCardOutlined,
  DashboardOutlined,
  HistoryOutlined,
  IdcardOutlined,
  ShoppingCartOutlined,
  TrophyOutlined,
  WalletOutlined,
} from '@ant-design/icons';

/** One page of the console: its menu entry (and dashboard navigation button) and its route. */
export interface AdminNavItem {
  /** Absolute path of the page. */
  path: string;
  /** The page, a lazily loaded chunk of its own (fetched when the page is first opened). */
  page: LazyExoticComponent<ComponentType>;
  /** Menu label (account spec §2 names the pages; accents restored). */
  label: string;
  /** One line saying what the page is for (the dashboard's navigation buttons). */
  hint: string;
  icon: ComponentType;
}

/**
 * Every page of the admin console, in menu order (account spec §2 "Admin dashboard" navigation
 * buttons, plus the payments to review and the audit log): the one list the console's menu, its
 * <Routes> (AdminConsole.tsx) and the dashboard's navigation buttons are built from. A page added
 * here is routed and in the menu; nothing else to keep in step.
 */
export const ADMIN_PAGES: readonly AdminNavItem[] = [
  {
    path: '/admin',
    page: lazy(() => import('./DashboardPage')),
    label: 'Painel',
    hint: 'Sorteio atual, preço, configurações e sorteios',
    icon: DashboardOutlined,
  },
  {
    path: '/admin/sorteios',
    page: lazy(() => import('./HeldRafflesPage')),
    label: 'Sorteios realizados',
    hint: 'Sorteios fechados e realizados, com participantes',
    icon: HistoryOutlined,
  },
  {
    path: '/admin/clientes',
    page: lazy(() => import('./ActiveClientsPage')),
    label: 'Clientes com saldo',
    hint: 'Clientes com saldo de cupom ativo',
    icon: WalletOutlined,
  },
  {
    path: '/admin/vencedores',
    page: lazy(() => import('./WinnersPage')),
    label: 'Vencedores',
    hint: 'Prêmios resgatados e a resgatar',
    icon: TrophyOutlined,
  },
  {
    path: '/admin/AdminClientesUser',
    page: lazy(() => import('./AdminUsersPage')),
    label: 'Cadastro de Clientes',
    hint: 'Clientes, saldos e atribuição de números',
    icon: IdcardOutlined,
  },
  {
    path: '/admin/sorteiosAtivos',
    page: lazy(() => import('./OpenBuyersPage')),
    label: 'Compradores do sorteio ativo',
    hint: 'Quem comprou cada número; exportar CSV',
    icon: ShoppingCartOutlined,
  },
  {
    path: '/admin/infoproducts',
    page: lazy(() => import('./InfoproductsPage')),
    label: 'Cadastro de Infoprodutos',
    hint: 'E-books, PDFs e capas',
    icon: BookOutlined,
  },
  {
    path: '/admin/pagamentos',
    page: lazy(() => import('./PaymentsReviewPage')),
    label: 'Pagamentos',
    hint: 'Pagamentos a revisar e sinalizados',
    icon: CreditCardOutlined,
  },
  {
    path: '/admin/auditoria',
    page: lazy(() => import('./AuditPage')),
    label: 'Auditoria',
    hint: 'Quem alterou o quê, com antes e depois',
    icon: AuditOutlined,
  },
];

/** A page's path inside the console's <Routes> (relative to /admin; the dashboard is the index). */
export const routePathOf = (item: AdminNavItem) => item.path.replace(/^\/admin\/?/, '');

/** The menu entry of a path: the longest entry path that is the path itself or a parent of it. */
export function navItemFor(pathname: string): AdminNavItem | undefined {
  const p = pathname.replace(/\/+$/, '') || '/';
  let best: AdminNavItem | undefined;
  for (const item of ADMIN_PAGES) {
    if ((p === item.path || p.startsWith(`${item.path}/`)) && (!best || item.path.length > best.path.length)) best = item;
  }
  return best;
}
