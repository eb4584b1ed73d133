/**
 * Writes `text` to the clipboard; false when the browser refuses (the person then copies by hand).
 * Where the Clipboard API is missing or refuses and a `fallbackArea` holding the text is given,
 * copies through that selected text area instead.
 */
export async function copyText(text: string, fallbackArea?: HTMLTextAreaElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* try the old way */
  }
  if (!fallbackArea) return false;
  fallbackArea.focus();
  fallbackArea.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}
