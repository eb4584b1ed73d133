import { createElement, type ReactNode } from 'react';
import { ConfigProvider, message } from 'antd';
import ptBR from 'antd/locale/pt_BR';
import { appTheme } from '../theme';

// Static messages render outside the React tree: give them the app's theme and locale.
ConfigProvider.config({
  holderRender: (children: ReactNode) => createElement(ConfigProvider, { locale: ptBR, theme: appTheme }, children),
});

/** A success message from a part of the page that has no antd scope above it (the top bar). */
export function toastSuccess(text: string): void {
  void message.success(text);
}
