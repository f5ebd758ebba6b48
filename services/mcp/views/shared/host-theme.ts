import {
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import { config } from 'zod/v4/core';

/**
 * The host's theme and style variables (MCP Apps "Theming"); fonts are not applied, since the
 * host's font CSS may fetch from origins a view may not reach.
 */
export function hostTheme(context: McpUiHostContext): void {
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

/**
 * The SDK validates messages with zod, which first tries to compile validators with
 * `new Function`; a view's Content-Security-Policy forbids that (no 'unsafe-eval'), and each try
 * would be reported as a violation. Told so at once, zod interprets instead.
 */
export function quietZod(): void {
  config({ jitless: true });
}
