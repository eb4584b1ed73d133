import { saveBlob } from '../components/saveFile';

/** Saves `text` as a .txt file the browser downloads. */
export function saveText(text: string, filename: string): void {
  saveBlob(new Blob([text], { type: 'text/plain;charset=utf-8' }), filename);
}
