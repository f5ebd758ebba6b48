import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AuthInfo } from '../src/auth/auth-info.ts';
import type { ChangeEntry, ChangeJournal } from '../src/journal/change-journal.ts';
import { dryRun, dryRunOutput } from '../src/tools/kit/common-schemas.ts';
import { journalWrites } from '../src/tools/kit/journal-writes.ts';
import { defineTool, type ToolDefinition } from '../src/tools/kit/tool-definition.ts';

// The journaling wrapper (kit/journal-writes.ts) names the change in every answer of a write tool
// it journals, as the tools that journal themselves do: `changeId`, which the tool's output schema
// allows (defineTool), and the text's last sentence — here the reason undo is not available, as a
// call that sent Google nothing has nothing to undo. The undoable case, for every write tool of
// the registry against the emulator, is in every-write-undone.test.ts.

const AUTH: AuthInfo = {
  userId: 'u1',
  scopes: new Set(['sheets:write']),
  credential: 'api_key',
  apiKeyId: 'k1',
};

function recordingJournal(): ChangeJournal & { entries: Array<{ id: string; entry: ChangeEntry }> } {
  const entries: Array<{ id: string; entry: ChangeEntry }> = [];
  return {
    entries,
    record(_auth, entry) {
      const id = `change-${entries.length + 1}`;
      entries.push({ id, entry });
      return id;
    },
    flush: async () => {},
    list: async () => ({ changes: [], nextPageToken: '' }),
    get: async () => undefined,
    markUndone: async () => 'ok',
    close: async () => {},
  };
}

/** A write tool that changes nothing at Google: it sends no batchUpdate (as a read tool, `quiet_read`). */
function quietWrite(scope: 'sheets:write' | 'sheets:read' = 'sheets:write'): ToolDefinition {
  return defineTool({
    name: scope === 'sheets:write' ? 'quiet_write' : 'quiet_read',
    toolset: 'structure',
    title: 'Quiet write',
    description: 'Writes nothing.',
    scope,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    inputSchema: z.object({ spreadsheetId: z.string(), dryRun }),
    outputSchema: z.object({ done: z.boolean(), dryRun: dryRunOutput }),
    async run(input) {
      return input.dryRun
        ? { structuredContent: { done: false, dryRun: true }, text: 'Dry run: nothing was changed.' }
        : { structuredContent: { done: true }, text: 'Done.' };
    },
  });
}

const context = { auth: AUTH, signal: new AbortController().signal, progress() {} };

describe('journalWrites', () => {
  it("adds the change's id to the answer and ends its text with why it cannot be undone", async () => {
    const journal = recordingJournal();
    const [tool] = journalWrites([quietWrite()], journal);
    const answer = await tool!.run({ spreadsheetId: 'sheet-1', dryRun: false }, context);
    expect(journal.entries).toHaveLength(1);
    const { id, entry } = journal.entries[0]!;
    expect(entry).toMatchObject({
      tool: 'quiet_write',
      spreadsheetId: 'sheet-1',
      undoUnavailableReason: 'Nothing to undo: quiet_write sent Google no change.',
    });
    expect(answer.structuredContent).toEqual({ done: true, changeId: id });
    expect(answer.text).toBe(`Done. Change ${id}. Nothing to undo: quiet_write sent Google no change.`);
    // The answer is one the tool's published output schema accepts.
    expect(tool!.outputSchema.strict().safeParse(answer.structuredContent).success).toBe(true);
  });

  it('a dry run is not journaled and names no change', async () => {
    const journal = recordingJournal();
    const [tool] = journalWrites([quietWrite()], journal);
    const answer = await tool!.run({ spreadsheetId: 'sheet-1', dryRun: true }, context);
    expect(journal.entries).toEqual([]);
    expect(answer.structuredContent).toEqual({ done: false, dryRun: true });
  });

  it('the output schema of a wrapped write tool allows changeId with the journal on or off; a read tool’s does not', () => {
    const read = quietWrite('sheets:read');
    expect(Object.keys(quietWrite().outputSchema.shape)).toContain('changeId');
    expect(Object.keys(journalWrites([quietWrite()], undefined)[0]!.outputSchema.shape)).toContain(
      'changeId',
    );
    expect(Object.keys(read.outputSchema.shape)).not.toContain('changeId');
  });
});
