import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type Plugin, rolldown } from 'rolldown';
import type { ViewDefinition } from '../../src/apps/views.ts';

/**
 * One view's HTML (docs/design.md §11.11): its TypeScript bundled with what it imports — the MCP
 * Apps SDK's `App` included — by Rolldown (the bundler `pnpm start` already uses) into one inline
 * script, its styles inline after the shared ones, in a document whose own
 * Content-Security-Policy lets nothing load from any origin. One file, nothing fetched.
 */
export const VIEWS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What each view's HTML may weigh gzipped (issue 39; measured in `pnpm bench`). */
export const VIEW_GZIP_BUDGET = 60_000;

/**
 * The document's own policy, beside the one the host builds from the resource's `_meta.ui.csp`
 * (which allows no origin either): nothing from anywhere — no connection, image, font, frame,
 * object, base URI or form target — and only the document's inline script and styles. Inline
 * rather than hashed: hosts may add an inline script of their own to a view's document, and
 * the view writes every cell as text, so no markup of a spreadsheet's can become a script.
 */
export const VIEW_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

export async function buildViewHtml(view: ViewDefinition): Promise<string> {
  const dir = path.join(VIEWS_DIR, view.name);
  const bundle = await rolldown({
    input: path.join(dir, 'view.ts'),
    platform: 'browser',
    logLevel: 'silent',
    plugins: [
      withoutSpecTypeRegistry,
      withoutModernWireSchemas,
      withoutZodJsonSchema,
      withoutSchemaDescriptions,
    ],
    treeshake: {
      // The SDK's packages mark no module as side-effect free; a view imports nothing for effects.
      moduleSideEffects: false,
      // zod's schema factories build values and touch nothing else: a schema the view never
      // uses is left out (the SDK defines one for every MCP type, most of them for servers).
      manualPureFunctions: ZOD_FACTORIES,
    },
  });
  let script: string;
  try {
    const { output } = await bundle.generate({ format: 'iife', minify: true, comments: { legal: false } });
    script = output[0].code;
  } finally {
    await bundle.close();
  }
  const styles = minifyCss(
    readFileSync(path.join(VIEWS_DIR, 'shared/base.css'), 'utf8') +
      readFileSync(path.join(dir, 'view.css'), 'utf8'),
  );
  // Comments (a lint's reasons) stay in the sources.
  const body = readFileSync(path.join(dir, 'view.html'), 'utf8')
    .replace(/\s*<!--[\s\S]*?-->/g, '')
    .trim();
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(view.title)}</title>`,
    `<style>${styles.replaceAll('</', '<\\/')}</style>`,
    '</head>',
    '<body>',
    body,
    // `</script` inside the script would end it; `<!--` would change how it is parsed.
    `<script>${script.trim().replaceAll('</script', '<\\/script').replaceAll('<!--', '<\\!--')}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

const ZOD_FACTORIES = [
  ...['object', 'looseObject', 'strictObject', 'string', 'number', 'boolean', 'array', 'union'],
  ...['literal', 'optional', 'nullable', 'enum', 'record', 'unknown', 'any', 'discriminatedUnion'],
  ...['intersection', 'lazy', 'tuple', 'custom', 'never', 'int'],
];

/**
 * The MCP client SDK fills a registry of validators for every MCP type when it loads
 * (`specTypeSchemas`, for code validating spec types itself), which keeps every schema in a
 * bundle that uses none of them: a view calls no such validator. Its two registering lines are
 * dropped; when an SDK release changes them, this fails loudly rather than the view growing by a
 * tenth unseen.
 */
const SPEC_TYPE_REGISTRY = [
  'for (const key of SPEC_SCHEMA_KEYS) register(key, schemas_exports[key]);',
  'for (const [key, schema] of Object.entries(authSchemas)) register(key, schema);',
];
const withoutSpecTypeRegistry: Plugin = {
  name: 'sheetgate-without-spec-type-registry',
  transform(code, id) {
    if (!/@modelcontextprotocol\/client\/dist\/src-[\w-]+\.mjs$/.test(id)) return null;
    let kept = code;
    for (const line of SPEC_TYPE_REGISTRY) {
      if (!kept.includes(line))
        throw new Error(`the MCP client SDK no longer has "${line}": see view-build.ts`);
      kept = kept.replace(line, '');
    }
    return kept;
  },
};

/**
 * A view talks to its host in the 2025 era's wire format: the App negotiates no MCP revision, and
 * the client SDK validates by the 2025 codec whatever has none. The 2026-07-28 codec's schemas,
 * built on first use, are never built in a view; their builder is replaced by one that says so
 * (2.6 KB gzipped off every view). When an SDK release moves it, this fails loudly.
 */
const MODERN_WIRE_SCHEMAS = '//#region ../core-internal/src/wire/rev2026-07-28/buildSchemas.ts';
const withoutModernWireSchemas: Plugin = {
  name: 'sheetgate-without-modern-wire-schemas',
  transform(code, id) {
    if (!/@modelcontextprotocol\/client\/dist\/src-[\w-]+\.mjs$/.test(id)) return null;
    const region = code.indexOf(MODERN_WIRE_SCHEMAS);
    const start = code.indexOf('\nfunction build() {', region);
    const end = code.indexOf('\nlet memo;\n', start);
    const next = code.indexOf('//#endregion', region);
    if (region === -1 || start === -1 || end === -1 || end > next)
      throw new Error(
        `the MCP client SDK no longer has the 2026 wire schemas' builder where it was: see view-build.ts`,
      );
    return `${code.slice(0, start)}\nfunction build() { throw new Error('MCP Apps views speak the 2025 wire format only'); }${code.slice(end)}`;
  },
};

/**
 * zod's conversion of schemas to JSON Schema, which every zod schema reaches through its
 * `toJSONSchema` and `~standard.jsonSchema` methods: a view converts no schema (it registers no
 * tool of its own), so each of the two modules' exports becomes a function whose result throws
 * when called (6 KB gzipped off every view).
 */
const ZOD_JSON_SCHEMA = /\/zod\/v4\/core\/(to-json-schema|json-schema-processors)\.js$/;
const withoutZodJsonSchema: Plugin = {
  name: 'sheetgate-without-zod-json-schema',
  load(id) {
    if (!ZOD_JSON_SCHEMA.test(id)) return null;
    const source = readFileSync(id, 'utf8');
    const names = new Set([
      ...[...source.matchAll(/^export (?:const|let|function|class) ([\w$]+)/gm)].map((match) => match[1]!),
      ...[...source.matchAll(/^export \{([^}]*)\}/gm)].flatMap((match) =>
        match[1]!.split(',').map(
          (name) =>
            name
              .trim()
              .split(/\s+as\s+/)
              .pop()!,
        ),
      ),
    ]);
    names.delete('');
    return [
      'const unavailable = () => () => { throw new Error("zod\'s JSON Schema conversion is not in MCP Apps views"); };',
      ...[...names].map((name) => `export const ${name} = unavailable;`),
    ].join('\n');
  },
};

/**
 * The MCP Apps SDK describes each field of its schemas in words (`.describe("…")`), for JSON
 * Schema made from them; a view makes none, and validation does not read them. The words are
 * left out (2 KB gzipped); a `.describe(` with anything but a string literal fails the build.
 * With the two above, these make room in the 60 KB budget for a view's own library (the chart
 * view's Chartist).
 */
const DESCRIBED = /\.describe\((?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\$]|\\.)*`)\)/g;
const withoutSchemaDescriptions: Plugin = {
  name: 'sheetgate-without-schema-descriptions',
  transform(code, id) {
    if (!/@modelcontextprotocol\/ext-apps\/dist\/src\/app\.js$/.test(id)) return null;
    const kept = code.replace(DESCRIBED, '');
    if (kept.includes('.describe('))
      throw new Error(
        'the MCP Apps SDK describes a schema with something other than words: see view-build.ts',
      );
    return kept;
  },
};

/** Its gzipped size, as the budget counts it (zlib's default level, what HTTP servers use). */
export function gzippedBytes(html: string): number {
  return gzipSync(html).length;
}

/** Comments and layout whitespace out; the rules as written (no value in them holds either). */
function minifyCss(css: string): string {
  return css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*([{}:;,>])\s*/g, '$1')
    .replace(/;}/g, '}')
    .trim();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
}
