import type { ReactNode } from 'react';
import { App as AntApp, ConfigProvider } from 'antd';
import ptBR from 'antd/locale/pt_BR';
import { appTheme } from '../theme';

/**
 * antd's theme, pt-BR locale and App context (message, modal, notification) for the part of the
 * page below it. The root of the app does not load antd: the home page and the layout are plain
 * elements, and each part that uses antd (the pages behind AntdOutlet, the purchase dialogs, the
 * top bar's menu) brings this scope in its own lazily loaded chunk.
 */
export default function AntdScope({ children, island = false }: { children: ReactNode; island?: boolean }) {
  return (
    <ConfigProvider locale={ptBR} theme={appTheme}>
      {/* A page gets antd's base text styles (div.ant-app); an island (dialogs, a menu) adds no element. */}
      <AntApp component={island ? false : 'div'}>{children}</AntApp>
    </ConfigProvider>
  );
}
