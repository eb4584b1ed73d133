import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';

/** Goes to the previous page of this app; when there is none (page opened directly), to `fallback`. */
export function useGoBack(fallback = '/') {
  const navigate = useNavigate();
  return useCallback(() => {
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (idx > 0) navigate(-1);
    else navigate(fallback);
  }, [navigate, fallback]);
}
