import { useCallback, useState, type ReactNode } from 'react';

/**
 * The page's 'Aviso' (limits, numbers taken meanwhile, failures of CONFIRMAR): `notice(text)` opens
 * it, the page renders <NoticeDialog> while `content` is set, `close` dismisses it.
 */
export function useNotice(): { notice(content: ReactNode): void; content: ReactNode | null; close(): void } {
  const [content, setContent] = useState<ReactNode | null>(null);
  const notice = useCallback((c: ReactNode) => setContent(c), []);
  const close = useCallback(() => setContent(null), []);
  return { notice, content, close };
}
