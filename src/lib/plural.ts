/** "1 session", "3 sessions": a count with its word, for words whose plural adds an s. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
