import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { VIEW_MIME_TYPE } from './ui-extension.ts';
import { type ViewDefinition, viewUri } from './views.ts';

/**
 * Where `pnpm views:gen` writes each view's HTML (one self-contained document: its script and
 * styles inline, nothing fetched from any origin), committed like proto/gen.
 */
export function generatedViewPath(name: string): string {
  return fileURLToPath(new URL(`./gen/${name}.html`, import.meta.url));
}

/**
 * What the host is told to allow the view (the extension's `_meta.ui` of a UI resource): no
 * origin for anything — connections, scripts, images, styles, fonts, frames, base URIs — and no
 * device permission. The view's data comes only from the host (the tool's result, and the tools
 * it calls through the host), never from Sheetgate or Google directly. The host builds the
 * iframe's Content-Security-Policy from this; the HTML carries its own as well
 * (services/mcp/views/README.md).
 */
export const VIEW_RESOURCE_UI = {
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: true,
} as const;

/** One `ui://` resource as resources/list declares it and resources/read answers it. */
export interface ViewResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: typeof VIEW_MIME_TYPE;
  /** The document, read from its generated file on first use (a replica's start does not wait). */
  html(): string;
}

export function viewResources(
  views: readonly ViewDefinition[],
  readHtml: (name: string) => string = (name) => readFileSync(generatedViewPath(name), 'utf8'),
): ReadonlyMap<string, ViewResource> {
  return new Map(
    views.map((view) => {
      let html: string | undefined;
      const resource: ViewResource = {
        uri: viewUri(view),
        name: view.name,
        title: view.title,
        description: view.description,
        mimeType: VIEW_MIME_TYPE,
        html: () => {
          html ??= readHtml(view.name);
          return html;
        },
      };
      return [resource.uri, resource];
    }),
  );
}
