import { randomBytes } from 'node:crypto';

/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, stable 2026-01-26; docs/design.md §11.11):
 * whether a request's client declared it, in either era. Nothing of the extension is shown to a
 * client that did not: its tools/list, server/discover and initialize answers stay byte for byte
 * what they were, and resources/* stay unknown methods.
 */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The one view format the extension defines: an HTML5 document for a sandboxed iframe. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * Whether client capabilities declare the extension with the HTML view format: `extensions`
 * ["io.modelcontextprotocol/ui"].mimeTypes (REQUIRED by the extension) naming it. A client that
 * names other formats only would get views it cannot show.
 */
export function declaresUi(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | null | undefined)?.extensions;
  const settings = (extensions as Record<string, unknown> | null | undefined)?.[UI_EXTENSION];
  const mimeTypes = (settings as { mimeTypes?: unknown } | null | undefined)?.mimeTypes;
  return Array.isArray(mimeTypes) && mimeTypes.includes(VIEW_MIME_TYPE);
}

/**
 * Legacy clients declare capabilities once, in `initialize`, and this endpoint keeps nothing
 * between requests: the initialize answer of a client that declared the extension carries an
 * `Mcp-Session-Id` saying so (MCP Streamable HTTP lets a server assign one; the client sends it
 * on every later request), and a request carrying such an id was negotiated with it. The id is
 * not a credential and binds nothing: a client that forges one only gets the views' metadata and
 * resources, which it could have asked for. A client that did not declare the extension gets no
 * id, as before.
 */
const UI_SESSION_PREFIX = 'sheetgate-ui.';

export function newUiSessionId(): string {
  return `${UI_SESSION_PREFIX}${randomBytes(16).toString('base64url')}`;
}

export function isUiSession(sessionId: string | undefined): boolean {
  return sessionId?.startsWith(UI_SESSION_PREFIX) === true;
}

/** What the server declares of the extension (initialize and server/discover capabilities). */
export const SERVER_UI_EXTENSION = { [UI_EXTENSION]: {} };
