import { useEffect, useRef, useState } from 'react';
import type { FormRule as Rule } from 'antd';

/**
 * What the two forms of the draw settings share (the customer area's 'Configurações do sorteio'
 * and the admin dashboard's 'Preço e configurações', account spec §2, §5, §9): texts, limits and
 * the save message that clears itself.
 */
export const BANNER_MAX = 240;
export const SAVED = 'Configurações salvas com sucesso.';
export const SAVE_FAILED = 'Não foi possível salvar. Tente novamente.';
/** Account spec §9: the save message clears after 4 s. */
export const MESSAGE_MS = 4000;

export const BANNER_RULES: Rule[] = [{ max: BANNER_MAX, message: `Use no máximo ${BANNER_MAX} caracteres.` }];
export const MAX_PER_SELECTION_RULES: Rule[] = [
  { required: true, message: 'Informe o máximo de números por seleção.' },
  { type: 'number', min: 1, max: 10, message: 'Informe um número de 1 a 10.' },
];

export type Notice = { type: 'success' | 'error'; text: string; detail?: string };

/** The save message: `show` sets it and clears it MESSAGE_MS later (the timer dies with the component). */
export function useTimedNotice(): [Notice | null, (n: Notice) => void] {
  const [notice, setNotice] = useState<Notice | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const show = (n: Notice) => {
    setNotice(n);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setNotice(null), MESSAGE_MS);
  };
  return [notice, show];
}
