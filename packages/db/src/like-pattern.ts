// LIKE patterns built from user text: the text matches literally, never as wildcards.

/** `text` with LIKE's `%`, `_` and escape character `\` escaped, so a pattern built around it matches it literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}
