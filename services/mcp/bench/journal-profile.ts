import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { out } from './one-request.ts';
import type { Profile, ProfileNode } from './profile-summary.ts';
import { sumWindows } from './profile-windows.ts';

/** A side of bench:journal as its profile is read: its calls and the windows they ran in. */
export interface ProfiledSide {
  name: 'on' | 'off';
  times: number[];
  windows: Array<{ fromMicros: number; toMicros: number }>;
}

/** Each side's profile over each family's measured rounds: what the journal-on service did more. */
export function reportJournalProfiles(
  dir: string,
  results: ReadonlyArray<{ family: { tool: string }; sides: ProfiledSide[] }>,
): void {
  const load = (side: 'on' | 'off') => {
    const folder = path.join(dir, side);
    const file = readdirSync(folder).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no CPU profile in ${folder}`);
    return JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as Profile;
  };
  const profiles = { on: load('on'), off: load('off') };
  const perCall = (value: number, calls: number) => `${(value / calls).toFixed(0).padStart(6)} µs`;
  for (const { family, sides } of results) {
    const [on, off] = sides.map((side) => ({
      side,
      sums: sumWindows(profiles[side.name], side.windows, journalPart),
    })) as [
      { side: ProfiledSide; sums: ReturnType<typeof sumWindows> },
      { side: ProfiledSide; sums: ReturnType<typeof sumWindows> },
    ];
    const calls = { on: on.side.times.length, off: off.side.times.length };
    const busy = (sums: ReturnType<typeof sumWindows>) =>
      sums.total - (sums.self.get('idle (waiting in the event loop)') ?? 0);
    out(
      `\n${family.tool}: the MCP service's main thread per call, journal on vs off (CPU profile, measured rounds)`,
    );
    out(`  busy ${perCall(busy(on.sums), calls.on)} vs ${perCall(busy(off.sums), calls.off)}`);
    const parts = [...new Set([...on.sums.self.keys(), ...off.sums.self.keys()])]
      .filter((part) => !part.startsWith('idle'))
      .map((part) => ({
        part,
        on: (on.sums.self.get(part) ?? 0) / calls.on,
        off: (off.sums.self.get(part) ?? 0) / calls.off,
      }))
      .sort((a, b) => b.on - b.off - (a.on - a.off))
      .slice(0, 12);
    out('  self time by part of the code, most added first:');
    for (const each of parts)
      out(
        `    ${signed(each.on - each.off).padStart(7)} µs  (${each.on.toFixed(0)} vs ${each.off.toFixed(0)})  ${each.part}`,
      );
    out('  inclusive time of the journal (on), per call, the 15 largest:');
    for (const [part, micros] of [...on.sums.inclusive].sort((a, b) => b[1] - a[1]).slice(0, 15))
      out(`    ${perCall(micros, calls.on)}  ${part}`);
  }
  out(`(profiles kept in ${dir})`);
}

/** The journal's own files (and its wrapper in the tools' kit), by file, for inclusive time. */
function journalPart(frame: ProfileNode['callFrame']): string | undefined {
  const file =
    /services\/mcp\/src\/(journal\/.+|tools\/kit\/(journal-writes|spreadsheet-batch-update))\.ts$/.exec(
      frame.url,
    )?.[1];
  return file ? `${file}.ts ${frame.functionName}`.trim() : undefined;
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
}
