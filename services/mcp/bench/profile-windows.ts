import { type Profile, type ProfileNode, partOf } from './profile-summary.ts';

/**
 * A V8 `.cpuprofile` summed over the samples taken within several windows (µs of the monotonic
 * clock): self time by part of the code (profile-summary.ts's parts), and inclusive time of the
 * parts a caller names — a part's own work and everything it called synchronously, counted once
 * per sample however deep it recurs. Work a part set going (a request's answer, a timer) runs on a
 * stack of its own and is not counted to it.
 */
export function sumWindows(
  profile: Profile,
  windows: ReadonlyArray<{ fromMicros: number; toMicros: number }>,
  inclusivePartOf: (frame: ProfileNode['callFrame']) => string | undefined,
): { total: number; self: Map<string, number>; inclusive: Map<string, number> } {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const partsOf = new Map<number, Set<string>>();
  const parts = (id: number): Set<string> => {
    let found = partsOf.get(id);
    if (found) return found;
    const up = parent.get(id);
    found = new Set(up === undefined ? [] : parts(up));
    const part = inclusivePartOf(byId.get(id)!.callFrame);
    if (part) found.add(part);
    partsOf.set(id, found);
    return found;
  };
  const add = (sums: Map<string, number>, key: string, micros: number) =>
    sums.set(key, (sums.get(key) ?? 0) + micros);
  const sorted = [...windows].sort((a, b) => a.fromMicros - b.fromMicros);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let window = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]!;
    while (window < sorted.length && sorted[window]!.toMicros < time) window++;
    if (window >= sorted.length) break;
    if (time < sorted[window]!.fromMicros) continue;
    // A sample stands for the time until the next one.
    const duration = profile.timeDeltas[i + 1] ?? 0;
    const id = profile.samples[i]!;
    total += duration;
    add(self, partOf(byId.get(id)!.callFrame), duration);
    for (const part of parts(id)) add(inclusive, part, duration);
  }
  return { total, self, inclusive };
}
