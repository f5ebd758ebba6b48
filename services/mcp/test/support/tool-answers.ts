import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';

/** A tool's answer as tests read it: error or not, its text, its structured content. */
export interface Answer {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args });
  return {
    isError: result.isError === true,
    text: (result.content as Array<{ text: string }>)[0]!.text,
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

/** The answer of a call that must succeed; a tool error fails the test with its text. */
export async function callToolOk(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Answer> {
  const answer = await callTool(client, name, args);
  expect(answer.isError, answer.text).toBe(false);
  return answer;
}
