import { api, errorMessage } from '../../api/client';
import { accountApi } from './accountApi';
import { saveBlob } from '../../components/saveFile';

export const EBOOK_FAILED = 'Não foi possível baixar o e-book agora.';
export const EXPORT_FAILED = 'Não foi possível baixar seus dados agora.';
export const EXPORT_FILENAME = 'cotaverde-meus-dados.json';

/**
 * 'Baixar e-book': asks GET /api/ebooks/by-draw/{drawId} for the short-lived signed link, fetches
 * the PDF with the session (this tab, no new window: a tab opened first stays empty while the
 * link is asked for) and saves it under the server's file name (blob + <a download>). Resolves
 * with an error text to show, or null.
 */
export async function openEbook(drawId: number): Promise<string | null> {
  try {
    const link = await accountApi.ebookByDraw(drawId);
    const file = await api.file(link.url);
    saveBlob(file.blob, file.filename || `${link.sku}.pdf`);
    return null;
  } catch (err) {
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
