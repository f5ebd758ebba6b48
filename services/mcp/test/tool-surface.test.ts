import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  committedSnapshots,
  modelFacingBytes,
  REGENERATE_COMMAND,
  snapshotPath,
  toolSurface,
  toolsetCosts,
} from './support/tool-surface.ts';

// The tool surface pinned (issue 33, item 3): what tools/list shows of each tool — name, title,
// description, schemas, annotations — against its snapshot in services/mcp/test/tool-surface/, so
// that no description or schema changes unseen. A change meant is regenerated on purpose.

const surface = await toolSurface();
const committed = committedSnapshots();
const names = [...new Set([...surface.map((tool) => tool.name), ...committed.keys()])];
const relative = (file: string) => path.relative(process.cwd(), file);

describe('each tool as tools/list shows it matches its snapshot', () => {
  it.each(names)('%s', (name) => {
    const tool = surface.find((candidate) => candidate.name === name);
    const file = relative(snapshotPath(name));
    if (!tool) {
      expect.fail(
        `${file} is the snapshot of no tool (none is registered as ${name}): run ${REGENERATE_COMMAND}`,
      );
    }
    if (!committed.has(name)) {
      expect.fail(`${name} has no snapshot (${file}): run ${REGENERATE_COMMAND} and commit the new file`);
    }
    // Compared as text so that the diff reads line by line, and a reordering (of properties, say)
    // counts: the order is what a model reads.
    expect(
      JSON.stringify(tool.listed, null, 2),
      `${name}: tools/list differs from ${file}; if the change is meant, run ${REGENERATE_COMMAND} and commit the diff`,
    ).toBe(JSON.stringify(committed.get(name), null, 2));
  });
});

describe('what tools/list costs a conversation', () => {
  it('prints the model-facing bytes (name, title, description, input schema) per toolset and for all tools', async () => {
    const costs = await toolsetCosts();
    const sets = costs.filter((cost) => cost.set !== 'all');
    const all = costs.find((cost) => cost.set === 'all')!;
    console.log(
      [
        'model-facing bytes (name, title, description, input schema) and the legacy tools/list reply, per toolset:',
        ...costs.map(
          (cost) =>
            `  ${cost.set.padEnd(11)} ${String(cost.tools.length).padStart(3)} tools ` +
            `${String(cost.modelFacingBytes).padStart(7)} B model-facing ` +
            `${String(cost.toolsListBytes).padStart(7)} B tools/list`,
        ),
      ].join('\n'),
    );
    // Each tool is in exactly one set, so the sets add up to the whole.
    expect(sets.flatMap((cost) => cost.tools).sort()).toEqual([...all.tools].sort());
    expect(all.tools).toEqual(surface.map((tool) => tool.name));
    expect(sets.reduce((sum, cost) => sum + cost.modelFacingBytes, 0)).toBe(all.modelFacingBytes);
    expect(all.modelFacingBytes).toBe(surface.reduce((sum, tool) => sum + modelFacingBytes(tool.listed), 0));
    for (const cost of costs) {
      expect(cost.tools.length, cost.set).toBeGreaterThan(0);
      // The reply carries more than the model-facing part (output schemas, annotations, icons).
      expect(cost.toolsListBytes, cost.set).toBeGreaterThan(cost.modelFacingBytes);
    }
  });
});

// What tools/list may cost a conversation (issue 35, item 9): 48 KB with every set and 12 KB for
// Reading and Writing together, the targets. The listed schemas drop what tells a model
// nothing (listed-input-schema.ts), descriptions say only what a model needs to choose and call a
// tool, and the rule tools take a condition or a colour scale point as one text, so no set lists
// condition types or point schemas again per tool. A new tool fits in what is left, or something
// else gives way: the budget is not raised.
const BUDGET = { all: 48_000, reading_and_writing: 12_000 };

describe('the tool list stays within its budget', () => {
  it(`every set in at most ${BUDGET.all} bytes, core-read and core-write in at most ${BUDGET.reading_and_writing}`, async () => {
    const costs = new Map((await toolsetCosts()).map((cost) => [cost.set, cost.modelFacingBytes]));
    const core = costs.get('core-read')! + costs.get('core-write')!;
    expect(costs.get('all'), 'model-facing bytes with every set').toBeLessThanOrEqual(BUDGET.all);
    expect(core, 'model-facing bytes of core-read and core-write').toBeLessThanOrEqual(
      BUDGET.reading_and_writing,
    );
  });
});
