/**
 * Objects on ranges (docs/design.md §11): named ranges — usable wherever a range is accepted, as
 * Google's values API reads a name in place of A1 — and protected ranges. Each change is one
 * `spreadsheets.batchUpdate`, after one `spreadsheets.get` with a field mask of the tabs and the
 * objects, so that a name, an id or a range is checked before Google sees it.
 */
import type { sheets_v4 } from 'googleapis';
import { z } from 'zod';
import { ToolError } from '../../../errors/tool-error.ts';
import { amount, quotedName } from '../../guards/loss-phrases.ts';
import { CHANGE, READ } from '../../kit/annotations.ts';
import { a1Range, dryRun, dryRunOutput, spreadsheetId } from '../../kit/common-schemas.ts';
import { deleteFound } from '../../kit/delete-found.ts';
import { TAB_PROPERTY_FIELDS } from '../../kit/first-visible-tab.ts';
import { a1Of, gridRangeOf, TAB_FIELDS, tabsOf } from '../../kit/rule-grid.ts';
import { spreadsheetBatchUpdate } from '../../kit/spreadsheet-batch-update.ts';
import { spreadsheetRead } from '../../kit/spreadsheet-read.ts';
import { defineTool } from '../../kit/tool-definition.ts';
import type { ToolDeps } from '../../kit/tool-deps.ts';

/**
 * Google's rules for a range name: letters, digits and underscores, not starting with a digit,
 * not `true`/`false`, at most 250 characters, and not readable as a cell (A1 or R1C1).
 */
const rangeName = z
  .string()
  .min(1)
  .max(250)
  .refine(
    (name) =>
      /^[\p{L}_][\p{L}\p{N}_]*$/u.test(name) &&
      !/^(true|false)$/i.test(name) &&
      !/^[A-Za-z]{1,3}[0-9]+$/.test(name) &&
      !/^[Rr][0-9]*[Cc][0-9]*$/.test(name),
    'a range name has only letters, digits and underscores, does not start with a digit, and does not look like a cell (A1, R1C1)',
  );

const namedRangeOutput = z.object({
  namedRangeId: z.string().nullable(),
  name: z.string(),
  range: z.string(),
});
const protectedRangeOutput = z.object({
  protectedRangeId: z.number().nullable(),
  range: z.string(),
  description: z.string().nullable(),
  warningOnly: z.boolean(),
});

export function rangeObjectTools(deps: ToolDeps) {
  const batchUpdate = spreadsheetBatchUpdate(deps);
  const readSpreadsheet = spreadsheetRead(deps);

  async function readNamedRanges(userId: string, signal: AbortSignal, id: string) {
    const data = await readSpreadsheet(userId, signal, id, TAB_FIELDS);
    const tabs = tabsOf(data);
    const named = (data.namedRanges ?? []).map((each) => ({
      namedRangeId: each.namedRangeId ?? null,
      name: each.name ?? '',
      range: a1Of(each.range ?? undefined, tabs),
    }));
    return { tabs, named, namedRanges: data.namedRanges ?? [] };
  }

  function namedCalled(named: Array<z.infer<typeof namedRangeOutput>>, name: string) {
    const found = named.find((each) => each.name.toLowerCase() === name.toLowerCase());
    if (!found) {
      const known = named.map((each) => each.name).join(', ');
      throw new ToolError(
        `there is no named range ${JSON.stringify(name)}; ${known ? `the named ranges are ${known}` : 'the spreadsheet has none'}`,
      );
    }
    return found;
  }

  async function readProtectedRanges(userId: string, signal: AbortSignal, id: string) {
    const data = await readSpreadsheet(
      userId,
      signal,
      id,
      `sheets(properties(${TAB_PROPERTY_FIELDS}),protectedRanges),namedRanges(namedRangeId,range)`,
    );
    const tabs = tabsOf(data);
    const named = new Map((data.namedRanges ?? []).map((each) => [each.namedRangeId, each.range]));
    const protectedRanges = (data.sheets ?? []).flatMap((sheet) =>
      (sheet.protectedRanges ?? []).map((each) => protectedView(each, tabs, named)),
    );
    return { tabs, protectedRanges };
  }

  function protectedView(
    each: sheets_v4.Schema$ProtectedRange,
    tabs: ReturnType<typeof tabsOf>,
    named: Map<string | null | undefined, sheets_v4.Schema$GridRange | undefined>,
  ): z.infer<typeof protectedRangeOutput> {
    return {
      protectedRangeId: each.protectedRangeId ?? null,
      range: a1Of(each.range ?? named.get(each.namedRangeId) ?? undefined, tabs),
      description: each.description ?? null,
      warningOnly: each.warningOnly ?? false,
    };
  }

  const describeProtection = (each: z.infer<typeof protectedRangeOutput>) =>
    `${each.range}${each.description ? ` ("${each.description}")` : ''}${each.warningOnly ? ', warning only' : ''}`;

  return [
    defineTool({
      name: 'add_named_range',
      toolset: 'rules',
      title: 'Name a range',
      description: 'Names a range (letters, digits, _), usable wherever a range is.',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({ spreadsheetId, name: rangeName, range: a1Range, dryRun }),
      outputSchema: namedRangeOutput.extend({ dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const { tabs, named, namedRanges } = await readNamedRanges(auth.userId, signal, input.spreadsheetId);
        const clash = named.find((each) => each.name.toLowerCase() === input.name.toLowerCase());
        if (clash)
          throw new ToolError(`a named range ${JSON.stringify(clash.name)} already exists (${clash.range})`);
        const { range } = gridRangeOf(input.range, tabs, namedRanges);
        const view = { namedRangeId: null, name: input.name, range: a1Of(range, tabs) };
        if (input.dryRun)
          return {
            structuredContent: { ...view, dryRun: true },
            text: `Dry run: would name ${view.range} ${input.name}. Nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          { addNamedRange: { namedRange: { name: input.name, range } } },
        ]);
        const added = {
          ...view,
          namedRangeId: reply.replies?.[0]?.addNamedRange?.namedRange?.namedRangeId ?? null,
        };
        return { structuredContent: added, text: `Named ${added.range} ${input.name}.` };
      },
    }),

    defineTool({
      name: 'list_named_ranges',
      toolset: 'rules',
      title: 'List named ranges',
      description: 'Lists the named ranges.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({ spreadsheetId }),
      outputSchema: z.object({ namedRanges: z.array(namedRangeOutput) }),
      async run(input, { auth, signal }) {
        const { named } = await readNamedRanges(auth.userId, signal, input.spreadsheetId);
        const text =
          named.length === 0
            ? 'No named ranges.'
            : named.map((each) => `${each.name}: ${each.range}`).join('\n');
        return { structuredContent: { namedRanges: named }, text };
      },
    }),

    defineTool({
      name: 'update_named_range',
      toolset: 'rules',
      title: 'Change a named range',
      description: 'Renames a named range or points it at another range.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, idempotentHint: true },
      inputSchema: z.object({
        spreadsheetId,
        name: z.string().min(1).max(250).describe('Its current name.'),
        newName: rangeName.optional(),
        range: a1Range.optional(),
        dryRun,
      }),
      outputSchema: namedRangeOutput.extend({ previous: namedRangeOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        if (input.newName === undefined && input.range === undefined)
          throw new ToolError('give newName, range, or both');
        const { tabs, named, namedRanges } = await readNamedRanges(auth.userId, signal, input.spreadsheetId);
        const previous = namedCalled(named, input.name);
        if (input.newName !== undefined) {
          const clash = named.find(
            (each) => each !== previous && each.name.toLowerCase() === input.newName!.toLowerCase(),
          );
          if (clash)
            throw new ToolError(
              `a named range ${JSON.stringify(clash.name)} already exists (${clash.range})`,
            );
        }
        const grid =
          input.range === undefined ? undefined : gridRangeOf(input.range, tabs, namedRanges).range;
        const view = {
          namedRangeId: previous.namedRangeId,
          name: input.newName ?? previous.name,
          range: grid ? a1Of(grid, tabs) : previous.range,
        };
        const change = `${previous.name} (${previous.range}) → ${view.name} (${view.range})`;
        if (input.dryRun)
          return {
            structuredContent: { ...view, previous, dryRun: true },
            text: `Dry run: would change ${change}. Nothing was changed.`,
          };
        const fields = [input.newName === undefined ? '' : 'name', grid ? 'range' : '']
          .filter(Boolean)
          .join(',');
        await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            updateNamedRange: {
              namedRange: {
                namedRangeId: previous.namedRangeId,
                ...(input.newName === undefined ? {} : { name: input.newName }),
                ...(grid ? { range: grid } : {}),
              },
              fields,
            },
          },
        ]);
        return { structuredContent: { ...view, previous }, text: `Changed ${change}.` };
      },
    }),

    defineTool({
      name: 'delete_named_range',
      toolset: 'rules',
      title: 'Delete a named range',
      description: 'Deletes a named range; the cells stay, formulas using it show #NAME?.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, name: z.string().min(1).max(250), dryRun }),
      outputSchema: z.object({ deleted: namedRangeOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const { named } = await readNamedRanges(auth.userId, signal, input.spreadsheetId);
        const deleted = namedCalled(named, input.name);
        return deleteFound(batchUpdate, { auth, signal }, input, {
          deleted,
          request: { deleteNamedRange: { namedRangeId: deleted.namedRangeId } },
          would: `delete the named range ${deleted.name} (${deleted.range})`,
          did: `Deleted the named range ${deleted.name} (${deleted.range}).`,
        });
      },
      async describeLoss(input, { auth, signal }) {
        const { named } = await readNamedRanges(auth.userId, signal, input.spreadsheetId);
        const deleted = namedCalled(named, input.name);
        return `the named range ${quotedName(deleted.name)} (${quotedName(deleted.range)})`;
      },
    }),

    defineTool({
      name: 'add_protected_range',
      toolset: 'rules',
      title: 'Protect a range',
      description: 'Protects a range or tab from edits by others, or warns (warningOnly).',
      scope: 'sheets:write',
      annotations: CHANGE,
      inputSchema: z.object({
        spreadsheetId,
        range: a1Range,
        description: z.string().max(500).optional(),
        warningOnly: z.boolean().default(false),
        dryRun,
      }),
      outputSchema: protectedRangeOutput.extend({ dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const read = await readSpreadsheet(auth.userId, signal, input.spreadsheetId, TAB_FIELDS);
        const tabs = tabsOf(read);
        const { range } = gridRangeOf(input.range, tabs, read.namedRanges ?? []);
        const view = {
          protectedRangeId: null,
          range: a1Of(range, tabs),
          description: input.description ?? null,
          warningOnly: input.warningOnly,
        };
        if (input.dryRun)
          return {
            structuredContent: { ...view, dryRun: true },
            text: `Dry run: would protect ${describeProtection(view)}. Nothing was changed.`,
          };
        const reply = await batchUpdate(auth.userId, signal, input.spreadsheetId, [
          {
            addProtectedRange: {
              protectedRange: {
                range,
                warningOnly: input.warningOnly,
                ...(input.description ? { description: input.description } : {}),
              },
            },
          },
        ]);
        const added = {
          ...view,
          protectedRangeId: reply.replies?.[0]?.addProtectedRange?.protectedRange?.protectedRangeId ?? null,
        };
        return {
          structuredContent: added,
          text: `Protected ${describeProtection(added)} (protectedRangeId ${added.protectedRangeId}).`,
        };
      },
    }),

    defineTool({
      name: 'list_protected_ranges',
      toolset: 'rules',
      title: 'List protected ranges',
      description: 'Lists the protections with their protectedRangeId.',
      scope: 'sheets:read',
      annotations: READ,
      inputSchema: z.object({ spreadsheetId }),
      outputSchema: z.object({ protectedRanges: z.array(protectedRangeOutput) }),
      async run(input, { auth, signal }) {
        const { protectedRanges } = await readProtectedRanges(auth.userId, signal, input.spreadsheetId);
        const text =
          protectedRanges.length === 0
            ? 'No protected ranges.'
            : protectedRanges
                .map((each) => `${each.protectedRangeId}: ${describeProtection(each)}`)
                .join('\n');
        return { structuredContent: { protectedRanges }, text };
      },
    }),

    defineTool({
      name: 'delete_protected_range',
      toolset: 'rules',
      title: 'Remove a protection',
      description: 'Removes a protection; the cells stay.',
      scope: 'sheets:write',
      annotations: { ...CHANGE, destructiveHint: true },
      inputSchema: z.object({ spreadsheetId, protectedRangeId: z.number().int(), dryRun }),
      outputSchema: z.object({ deleted: protectedRangeOutput, dryRun: dryRunOutput }),
      async run(input, { auth, signal }) {
        const { protectedRanges } = await readProtectedRanges(auth.userId, signal, input.spreadsheetId);
        const deleted = protectedRanges.find((each) => each.protectedRangeId === input.protectedRangeId);
        if (!deleted) {
          throw new ToolError(
            `there is no protected range ${input.protectedRangeId}; the spreadsheet has ${amount(protectedRanges.length, 'protected range')}${protectedRanges.length ? ` (${protectedRanges.map((each) => each.protectedRangeId).join(', ')})` : ''}`,
          );
        }
        return deleteFound(batchUpdate, { auth, signal }, input, {
          deleted,
          request: { deleteProtectedRange: { protectedRangeId: input.protectedRangeId } },
          would: `remove the protection of ${describeProtection(deleted)}`,
          did: `Removed the protection of ${describeProtection(deleted)}.`,
        });
      },
      async describeLoss(input, { auth, signal }) {
        const { protectedRanges } = await readProtectedRanges(auth.userId, signal, input.spreadsheetId);
        const deleted = protectedRanges.find((each) => each.protectedRangeId === input.protectedRangeId);
        if (!deleted) throw new ToolError(`there is no protected range ${input.protectedRangeId}`);
        // The description is written by anyone the file is shared with: quoted and escaped.
        return `the protection of ${quotedName(deleted.range)}${deleted.description ? ` (${quotedName(deleted.description)})` : ''}`;
      },
    }),
  ];
}
