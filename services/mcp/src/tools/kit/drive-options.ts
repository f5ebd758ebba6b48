/**
 * What every Drive call the tools make says (docs/design.md §11.4): the app understands shared
 * drives. Without it Google answers 404 for a file in a shared drive, as if it were not there.
 */
export const ALL_DRIVES = { supportsAllDrives: true } as const;
/** …and what every files.list says besides, so that shared drives' files are listed too. */
export const LIST_ALL_DRIVES = {
  supportsAllDrives: true,
  includeItemsFromAllDrives: true,
  corpora: 'allDrives',
} as const;

/**
 * A string literal of Drive's `q` grammar: quotes around it, and the two characters that could end
 * it early escaped (`\` as `\\`, `'` as `\'`), so that no text a model writes leaves the string.
 */
export function driveQueryString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}
