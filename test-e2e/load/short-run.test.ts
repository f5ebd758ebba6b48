import { expect, it } from 'vitest';
import { formatFigures, loadProblems, runMixedLoad } from './mixed-load.ts';

// The load of `pnpm test:load`, short enough for every `pnpm test`: the same people, clients,
// requests and checks for 10 s (after a 3 s warm-up), so CI runs the whole path on every change.
it('a short mixed load: every request answered 2xx, no tool error, nobody shown anyone else’s data, RSS bounded', async () => {
  const figures = await runMixedLoad({ seconds: 10, people: 6, connections: 10, maxWarmupSeconds: 3 });
  process.stdout.write(`${formatFigures(figures)}\n`);
  expect(loadProblems(figures)).toEqual([]);
  expect(figures.requests).toBeGreaterThan(0);
}, 120_000);
