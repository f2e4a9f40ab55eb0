/** Memory names made from what a user hands the app (file names, dialogue titles). */

/**
 * A memory name from a file name or a dialogue title: markup, path separators, control and
 * direction characters removed (a name is shown in lists and messages), at most 100 characters.
 * @example memoryNameFrom('big<b>1200</b>') // 'big1200'
 */
export function memoryNameFrom(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N} ._()'-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100)
    .trim();
}
