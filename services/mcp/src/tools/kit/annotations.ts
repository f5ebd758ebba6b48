/**
 * The annotations most tools share: a read that changes nothing, and a change that adds or edits
 * without destroying. `openWorldHint` is set by defineTool from the outbound classifier
 * (guards/outbound-actions.ts): true only for the tools that can send outside the person's account.
 */
export const READ = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const CHANGE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
