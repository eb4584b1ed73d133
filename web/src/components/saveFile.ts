/**
 * Saves `blob` as a file the browser downloads under `filename`: a temporary link with the
 * download attribute. The object URL is revoked well after the click has been handled (revoking at
 * once can cancel the download in some browsers).
 */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
