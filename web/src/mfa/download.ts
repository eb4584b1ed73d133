import { saveBlob } from '../components/saveFile';

/** Saves `text` as a .txt file the browser downloads. */
export function saveText(text: string, filename: string): void {
  saveBlob(new Blob([text], { type: 'text/plain;charset=utf-8' }), filename);
}

/** Writes `text` to the clipboard; false when the browser refuses (the person then copies by hand). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
