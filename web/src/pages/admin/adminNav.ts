import type { ComponentType } from 'react';
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

/** One entry of the console's menu (and of the dashboard's navigation buttons). */
export interface AdminNavItem {
  /** Absolute path of the page. */
  path: string;
  /** Menu label (account spec §2 names the pages; accents restored). */
  label: string;
  /** One line saying what the page is for (the dashboard's navigation buttons). */
  hint: string;
  icon: ComponentType;
}

/**
 * Every page of the admin console, in menu order (account spec §2 "Admin dashboard" navigation
 * buttons, plus the payments to review and the audit log of issue 9). The console's <Routes>
 * (AdminConsole.tsx) serves these paths.
 */
export const ADMIN_NAV: readonly AdminNavItem[] = [
  { path: '/admin', label: 'Painel', hint: 'Sorteio atual, preço, configurações e sorteios', icon: DashboardOutlined },
  { path: '/admin/sorteios', label: 'Sorteios realizados', hint: 'Sorteios fechados e realizados, com participantes', icon: HistoryOutlined },
  { path: '/admin/clientes', label: 'Clientes com saldo', hint: 'Clientes com saldo de cupom ativo', icon: WalletOutlined },
  { path: '/admin/vencedores', label: 'Vencedores', hint: 'Prêmios resgatados e a resgatar', icon: TrophyOutlined },
  { path: '/admin/AdminClientesUser', label: 'Cadastro de Clientes', hint: 'Clientes, saldos e atribuição de números', icon: IdcardOutlined },
  { path: '/admin/sorteiosAtivos', label: 'Compradores do sorteio ativo', hint: 'Quem comprou cada número; exportar CSV', icon: ShoppingCartOutlined },
  { path: '/admin/infoproducts', label: 'Cadastro de Infoprodutos', hint: 'E-books, PDFs e capas', icon: BookOutlined },
  { path: '/admin/pagamentos', label: 'Pagamentos', hint: 'Pagamentos a revisar e sinalizados', icon: CreditCardOutlined },
  { path: '/admin/auditoria', label: 'Auditoria', hint: 'Quem alterou o quê, com antes e depois', icon: AuditOutlined },
];

/** The menu entry of a path: the longest entry path that is the path itself or a parent of it. */
export function navItemFor(pathname: string): AdminNavItem | undefined {
  const p = pathname.replace(/\/+$/, '') || '/';
  let best: AdminNavItem | undefined;
  for (const item of ADMIN_NAV) {
    if ((p === item.path || p.startsWith(`${item.path}/`)) && (!best || item.path.length > best.path.length)) best = item;
  }
  return best;
}
