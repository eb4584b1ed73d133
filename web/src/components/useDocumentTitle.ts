import { useEffect } from 'react';
import { BRAND } from '../brand';

/** Sets the tab title: "<page> · Cota Verde". */
export function useDocumentTitle(title?: string) {
  useEffect(() => {
    document.title = title ? `${title} · ${BRAND.name}` : `${BRAND.name} · E-books e sorteios`;
  }, [title]);
}
