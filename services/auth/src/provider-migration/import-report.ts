/** What an import did (or, in a dry run, would do) with one kind of row. */
export interface KindReport {
  imported: number;
  /** Rows an earlier run imported already: left as they are. */
  alreadyImported: number;
  /** Rows that met something Sheetgate already had, by what was done about it. */
  conflicts: Record<string, number>;
  /** Rows not imported, by reason. */
  skipped: Record<string, number>;
}

export interface ImportReport {
  dryRun: boolean;
  /** Tables found in the source database. */
  sourceTables: string[];
  users: KindReport;
  googleConnections: KindReport;
  sessions: KindReport;
  apiKeys: KindReport;
  /** Rows of the retired provider's OAuth tables: never imported, so clients register again. */
  oauthNotImported: { clients: number; tokens: number; consents: number };
}

const emptyKind = (): KindReport => ({ imported: 0, alreadyImported: 0, conflicts: {}, skipped: {} });

export function emptyReport(dryRun: boolean, sourceTables: string[]): ImportReport {
  return {
    dryRun,
    sourceTables,
    users: emptyKind(),
    googleConnections: emptyKind(),
    sessions: emptyKind(),
    apiKeys: emptyKind(),
    oauthNotImported: { clients: 0, tokens: 0, consents: 0 },
  };
}

export const countIn = (tally: Record<string, number>, reason: string, by = 1) => {
  tally[reason] = (tally[reason] ?? 0) + by;
};

/** The report as an operator reads it in a terminal: one line per kind, then the reasons. */
export function formatReport(report: ImportReport): string {
  const lines = [
    report.dryRun ? 'Dry run: nothing was written.' : 'Import finished.',
    `Source tables: ${report.sourceTables.join(', ')}`,
  ];
  const kinds = [
    ['users', report.users],
    ['Google connections', report.googleConnections],
    ['sessions', report.sessions],
    ['API keys', report.apiKeys],
  ] as const;
  for (const [label, kind] of kinds) {
    lines.push(
      `${label}: ${kind.imported} ${report.dryRun ? 'to import' : 'imported'}, ${kind.alreadyImported} already imported`,
    );
    for (const [reason, count] of Object.entries(kind.conflicts))
      lines.push(`  conflict (${count}): ${reason}`);
    for (const [reason, count] of Object.entries(kind.skipped)) lines.push(`  skipped (${count}): ${reason}`);
  }
  const oauth = report.oauthNotImported;
  lines.push(
    `OAuth (not imported by design; apps connect again): ${oauth.clients} client(s), ${oauth.tokens} token(s), ${oauth.consents} consent(s)`,
  );
  return `${lines.join('\n')}\n`;
}
