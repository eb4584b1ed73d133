/** A response body as the tests read it: parsed JSON, else the text as it came. */
export function jsonOrText(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    /* keep text */
    return text;
  }
}
