import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';

/** A structured result, read loosely: each test states the shape it expects. */
// biome-ignore lint/suspicious/noExplicitAny: results are checked by toEqual, not by the compiler
export type Structured = Record<string, any>;

/**
 * The checks the spreadsheet tool suites make of one spreadsheet's tools through the MCP client
 * (given as getters: the suites connect in `beforeAll`): `call` must succeed; `refused` must be a
 * tool error with no write sent to Google; `dryRun` must answer, say so and send no write.
 * `writes` counts the emulator's `spreadsheets.batchUpdate` attempts.
 */
export function spreadsheetToolChecks(on: {
  client: () => Client;
  spreadsheetId: () => string;
  emulatorUrl: () => string;
}) {
  async function writes(): Promise<number> {
    const body = (await (await fetch(`${on.emulatorUrl()}/__emulator/stats`)).json()) as {
      methods: Record<string, { attempts: number }>;
    };
    return body.methods['sheets.spreadsheets.batchUpdate']?.attempts ?? 0;
  }

  async function call(name: string, args: Record<string, unknown>) {
    const result = await on
      .client()
      .callTool({ name, arguments: { spreadsheetId: on.spreadsheetId(), ...args } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    return { structured: result.structuredContent as Structured, text };
  }

  async function refused(name: string, args: Record<string, unknown>): Promise<string> {
    const before = await writes();
    const result = await on
      .client()
      .callTool({ name, arguments: { spreadsheetId: on.spreadsheetId(), ...args } });
    expect(result.isError, JSON.stringify(result.content)).toBe(true);
    expect(await writes()).toBe(before);
    return (result.content as Array<{ text: string }>)[0]!.text;
  }

  async function dryRun(name: string, args: Record<string, unknown>) {
    const before = await writes();
    const answer = await call(name, { ...args, dryRun: true });
    expect(answer.structured.dryRun).toBe(true);
    expect(answer.text).toContain('Nothing was changed.');
    expect(await writes()).toBe(before);
    return answer;
  }

  return { writes, call, refused, dryRun };
}
