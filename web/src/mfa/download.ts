/** Saves `text` as a .txt file the browser downloads (a temporary link with the download attribute). */
export function saveText(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoked after the click has been handled (revoking at once can cancel the download in some browsers).
  setTimeout(() => URL.revokeObjectURL(url), 1000);
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
