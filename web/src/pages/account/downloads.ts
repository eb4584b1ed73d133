import { apiUrl, errorMessage } from '../../api/client';
import { accountApi } from './accountApi';
import { saveBlob } from '../../components/saveFile';

export const EBOOK_FAILED = 'Não foi possível baixar o e-book agora.';
export const EXPORT_FAILED = 'Não foi possível baixar seus dados agora.';
export const EXPORT_FILENAME = 'cotaverde-meus-dados.json';

/**
 * 'Baixar e-book': asks GET /api/ebooks/by-draw/{drawId} for a signed, short-lived link and opens
 * it in a new tab. The tab is opened at once, inside the click (a tab opened after an await is
 * blocked as a pop-up), and pointed at the link when it arrives; on failure it is closed again.
 * Resolves with an error text to show, or null.
 */
export async function openEbook(drawId: number): Promise<string | null> {
  const tab = typeof window !== 'undefined' ? window.open('', '_blank') : null;
  try {
    const link = await accountApi.ebookByDraw(drawId);
    const url = apiUrl(link.url);
    if (tab && !tab.closed) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      // Pop-ups blocked: a download in this tab works too (the file is sent as an attachment).
      window.location.assign(url);
    }
    return null;
  } catch (err) {
    tab?.close();
    return errorMessage(err, EBOOK_FAILED);
  }
}

/** 'Baixar meus dados' (GET /api/me/export). Resolves with an error text to show, or null. */
export async function downloadMyData(): Promise<string | null> {
  try {
    const file = await accountApi.exportMine();
    saveBlob(file.blob, file.filename || EXPORT_FILENAME);
    return null;
  } catch (err) {
    return errorMessage(err, EXPORT_FAILED);
  }
}
