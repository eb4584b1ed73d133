import { useCallback, type ReactNode } from 'react';
import { App } from 'antd';

/** The page's 'Aviso' dialog (limits, numbers taken meanwhile, failures of CONFIRMAR). */
export function useNotice(): (content: ReactNode) => void {
  const { modal } = App.useApp();
  return useCallback((content: ReactNode) => modal.warning({ title: 'Aviso', content, okText: 'OK', centered: true }), [modal]);
}
