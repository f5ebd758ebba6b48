import type { ChangeSummary } from '../gen/sheetgate/v1/change_journal.ts';

const numbers = new Intl.NumberFormat('en-US');

/** The ranges of a change in a few words: the first three, then how many more. */
export function changeRanges(ranges: readonly string[]): string {
  const more = ranges.length > 3 ? ` and ${ranges.length - 3} more` : '';
  return `${ranges.slice(0, 3).join(', ')}${more}`;
}

/**
 * How the MCP service begins the summary of a change that sent something outside the person's
 * account (issue 37): `outbound (to carol@gmail.com): shared with carol@gmail.com as writer`.
 */
export const OUTBOUND_SUMMARY_PREFIX = 'outbound (';

/** A change's summary split into its outbound mark (`outbound (…)`) and the rest; no mark: undefined. */
export function outboundMark(summary: string): { mark: string; rest: string } | undefined {
  if (!summary.startsWith(OUTBOUND_SUMMARY_PREFIX)) return undefined;
  const end = summary.indexOf('): ');
  return end < 0 ? undefined : { mark: summary.slice(0, end + 1), rest: summary.slice(end + 3) };
}

/**
 * What a change did, in the words list_changes and the dashboard's Activity both show
 * (docs/design.md §11.8): the summary the MCP service recorded ("wrote 12 cells of Sheet1!A1:C4").
 * An entry recorded before summaries existed is worded from its tool, ranges and counts, naming
 * only the counts it has: a change that recorded no cells (a format, a chart) is not "0 cells".
 */
export function describeChange(
  change: Pick<ChangeSummary, 'summary' | 'tool' | 'ranges' | 'cells' | 'rows'>,
): string {
  if (change.summary) return change.summary;
  const where = change.ranges.length ? ` of ${changeRanges(change.ranges)}` : '';
  const counts = [
    ...(change.cells > 0 ? [`${numbers.format(change.cells)} ${change.cells === 1 ? 'cell' : 'cells'}`] : []),
    ...(change.rows > 0 ? [`${numbers.format(change.rows)} ${change.rows === 1 ? 'row' : 'rows'}`] : []),
  ];
  return `${change.tool}${where}${counts.length ? ` (${counts.join(', ')})` : ''}`;
}
