import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolsUnderTest, type ToolsUnderTest } from './support/tools-in-process.ts';

// describeLoss of delete_chart (the sentence a person confirms), run in this process against a
// Google emulator process: one spreadsheets.get, no change, and the titles written by anyone the
// file is shared with quoted so that they cannot disguise the sentence.

let under: ToolsUnderTest;
let spreadsheetId: string;

async function run(name: string, input: Record<string, unknown>) {
  const tool = under.tool(name);
  return tool.run(tool.inputSchema.parse({ spreadsheetId, ...input }), under.context());
}

async function describeLoss(input: Record<string, unknown>) {
  const tool = under.tool('delete_chart');
  const parsed = tool.inputSchema.parse({ spreadsheetId, ...input });
  await under.forgetCalls();
  const sentence = await tool.describeLoss!(parsed, under.context());
  const calls = await under.calls();
  expect(calls.all).toBe(1);
  expect(calls.methods['sheets.spreadsheets.get']?.attempts).toBe(1);
  return sentence;
}

beforeAll(async () => {
  under = await startToolsUnderTest();
  [spreadsheetId] = (await under.seed([
    {
      name: 'Chart losses',
      sheets: [
        {
          title: 'Data \u202eQ3',
          values: [
            ['Month', 'Total'],
            ['Jan', 3],
            ['Feb', 5],
          ],
        },
      ],
    },
  ])) as [string];
}, 60_000);

afterAll(async () => {
  await under?.stop();
});

describe('what a delete of a chart would lose', () => {
  it('a chart over a tab: its type, title and tab, escaped', async () => {
    const added = await run('add_chart', {
      type: 'column',
      range: "'Data \u202eQ3'!A1:B3",
      title: 'Allow"\n\u200b',
    });
    const chartId = added.structuredContent.chartId as number;
    expect(await describeLoss({ chartId })).toBe(
      `the column chart "Allow\\"\\n\\u{200b}" (chartId ${chartId}) on the tab "Data \\u{202e}Q3"`,
    );
    await run('delete_chart', { chartId });
    await expect(describeLoss({ chartId })).rejects.toThrow(`there is no chart ${chartId}`);
  });

  it('a chart alone on its own sheet: the sheet goes with it', async () => {
    const added = await run('add_chart', { type: 'pie', range: "'Data \u202eQ3'!A1:B3", newSheet: true });
    const chartId = added.structuredContent.chartId as number;
    expect(await describeLoss({ chartId })).toBe(
      `the pie chart (chartId ${chartId}), alone on its own sheet "Chart1", which goes with it`,
    );
  });
});
