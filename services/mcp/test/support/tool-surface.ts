import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOLSETS, type ToolsetName } from '@sheetgate/proto';
import { createLogger } from '@sheetgate/service-runtime';
import type { AuthInfo } from '../../src/auth/auth-info.ts';
import { serializeReply } from '../../src/protocol/json-rpc.ts';
import { createMcpServer } from '../../src/protocol/mcp-server.ts';
import { createRequestStateCodec } from '../../src/protocol/request-state.ts';
import type { ResourceScope } from '../../src/tools/kit/tool-definition.ts';
import type { ToolDeps } from '../../src/tools/kit/tool-deps.ts';
import { sheetgateTools } from '../../src/tools/registry.ts';

/**
 * The tool surface (issue 33, items 3 and 4): what `tools/list` shows of each tool, pinned as one
 * snapshot per tool under services/mcp/test/tool-surface/, and docs/tools.md, both generated from
 * the registry through the MCP server's own `tools/list` (no tool is run, no client is called).
 * `pnpm tools:gen` writes them; `tool-surface.test.ts` and `tools-doc.test.ts` check them.
 */

export const REGENERATE_COMMAND = 'pnpm tools:gen';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const SNAPSHOT_DIR = path.join(repoRoot, 'services/mcp/test/tool-surface');
export const TOOLS_DOC = path.join(repoRoot, 'docs/tools.md');

/** One tool as a client sees it in `tools/list`, beside what the definition says of it. */
export interface SurfaceTool {
  name: string;
  toolset: ToolsetName;
  scope: ResourceScope;
  /**
   * The tool's entry of `tools/list` without `icons` (the server's icons, the same for every tool,
   * with the deployment's own URL in them): name, title, description, schemas, annotations.
   */
  listed: ListedTool;
}

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: Record<string, unknown>;
  [field: string]: unknown;
}

type JsonSchema = { [keyword: string]: unknown };

function listingServer() {
  return createMcpServer({
    tools: sheetgateTools({} as ToolDeps),
    logger: createLogger({ service: 'tool-surface', level: 'silent' }),
    baseUrl: 'https://sheetgate.example',
    states: createRequestStateCodec('surface-'.repeat(4)),
  });
}

/** `tools/list` (legacy era) for a credential with these toolsets (every set when undefined). */
async function toolsList(server: ReturnType<typeof listingServer>, toolsets: readonly string[] | undefined) {
  const auth: AuthInfo = {
    userId: 'tool-surface',
    scopes: new Set(['sheets:read', 'sheets:write']),
    credential: 'api_key',
    ...(toolsets ? { toolsets } : {}),
  };
  const { reply } = await server.handle(
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { era: 'legacy', version: '2025-11-25', auth, signal: new AbortController().signal, notify() {} },
  );
  const tools = (reply as { result: { tools: Array<Record<string, unknown>> } }).result.tools;
  return { tools, bytes: Buffer.byteLength(serializeReply(reply)) };
}

/** Every registered tool, in tools/list order, as `tools/list` lists it to a credential with every set. */
export async function toolSurface(): Promise<SurfaceTool[]> {
  const definitions = new Map(sheetgateTools({} as ToolDeps).map((tool) => [tool.name, tool]));
  const { tools } = await toolsList(listingServer(), undefined);
  return tools.map(({ icons: _icons, ...listed }) => {
    const definition = definitions.get(String(listed.name));
    if (!definition) throw new Error(`tools/list shows ${String(listed.name)}, which the registry lacks`);
    return {
      name: definition.name,
      toolset: definition.toolset,
      scope: definition.scope,
      listed: listed as ListedTool,
    };
  });
}

/** What a model reads of a tool before it calls anything: name, title, description, input schema. */
export function modelFacingBytes(listed: ListedTool): number {
  const { name, title, description, inputSchema } = listed;
  return Buffer.byteLength(JSON.stringify({ name, title, description, inputSchema }));
}

export interface ToolsetCost {
  set: ToolsetName | 'all';
  tools: string[];
  /** Sum of `modelFacingBytes` over the set's tools. */
  modelFacingBytes: number;
  /** The whole legacy `tools/list` reply for a credential with this set alone, as serialised. */
  toolsListBytes: number;
}

/** Per toolset, then for every tool: what `tools/list` shows and what it costs. */
export async function toolsetCosts(): Promise<ToolsetCost[]> {
  const server = listingServer();
  const costs: ToolsetCost[] = [];
  const measure = async (set: ToolsetCost['set']) => {
    const { tools, bytes } = await toolsList(server, set === 'all' ? undefined : [set]);
    costs.push({
      set,
      tools: tools.map((tool) => String(tool.name)),
      modelFacingBytes: tools.reduce((sum, tool) => sum + modelFacingBytes(tool as ListedTool), 0),
      toolsListBytes: bytes,
    });
  };
  for (const { name } of TOOLSETS) await measure(name);
  await measure('all');
  return costs;
}

// ---------------------------------------------------------------------------------------------
// Snapshots

export function snapshotPath(tool: string): string {
  return path.join(SNAPSHOT_DIR, `${tool}.json`);
}

/** The committed snapshots, by tool name (the file's name without `.json`). */
export function committedSnapshots(): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (!existsSync(SNAPSHOT_DIR)) return found;
  for (const file of readdirSync(SNAPSHOT_DIR).sort()) {
    if (!file.endsWith('.json')) continue;
    found.set(
      file.slice(0, -'.json'.length),
      JSON.parse(readFileSync(path.join(SNAPSHOT_DIR, file), 'utf8')),
    );
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// docs/tools.md

/** docs/tools.md: every tool with its set, scope, hints, description and arguments. */
export function renderToolsDoc(surface: readonly SurfaceTool[], costs: readonly ToolsetCost[]): string {
  const lines: string[] = [
    '# Tools',
    '',
    `<!-- Generated by \`${REGENERATE_COMMAND}\` from services/mcp/src/tools/registry.ts; do not edit. -->`,
    '',
    'Every tool of the MCP service, generated from the tool registry',
    '(`services/mcp/src/tools/registry.ts`) through the server’s own `tools/list`: run',
    `\`${REGENERATE_COMMAND}\` after changing a tool; \`pnpm test\` fails while this page or a tool’s`,
    'snapshot (`services/mcp/test/tool-surface/<tool>.json`) is not current. Why the tools are as they',
    'are is in docs/design.md §11; how to add one, in docs/adding-a-tool.md.',
    '',
    'A credential’s scope decides what it may do (`sheets:read`, `sheets:write`); its toolsets decide',
    'which tools it is shown and may call (design §11.5). “Model-facing bytes” are a tool’s name,',
    'title, description and input schema as JSON: what a conversation pays to be shown it.',
    '',
    '## Toolsets',
    '',
    '| set | title | tools | model-facing bytes | `tools/list` bytes |',
    '|---|---|---|---|---|',
  ];
  const titles = new Map<string, { title: string; description: string }>(
    TOOLSETS.map((set) => [set.name, set]),
  );
  for (const cost of costs) {
    const title = cost.set === 'all' ? 'every set' : (titles.get(cost.set)?.title ?? '');
    const set = cost.set === 'all' ? 'all' : `[\`${cost.set}\`](#${cost.set})`;
    lines.push(
      `| ${set} | ${title} | ${cost.tools.length} | ${cost.modelFacingBytes} | ${cost.toolsListBytes} |`,
    );
  }
  for (const set of TOOLSETS) {
    const tools = surface.filter((tool) => tool.toolset === set.name);
    lines.push('', `## ${set.name}`, '', `${set.title}: ${set.description}.`, '');
    lines.push('| tool | scope | hints |', '|---|---|---|');
    for (const tool of tools) {
      lines.push(`| [\`${tool.name}\`](#${tool.name}) | \`${tool.scope}\` | ${hints(tool.listed)} |`);
    }
    for (const tool of tools) lines.push('', ...renderTool(tool));
  }
  return `${lines.join('\n')}\n`;
}

function hints(listed: ListedTool): string {
  const annotations = listed.annotations as Record<string, boolean | undefined>;
  const said = [
    annotations.readOnlyHint ? 'read-only' : undefined,
    annotations.destructiveHint ? 'destructive' : undefined,
    annotations.idempotentHint ? 'idempotent' : undefined,
    annotations.openWorldHint ? 'open-world' : undefined,
  ].filter(Boolean);
  return said.join(', ') || '—';
}

function renderTool(tool: SurfaceTool): string[] {
  const { listed } = tool;
  const lines = [
    `### ${tool.name}`,
    '',
    `**${listed.title}** · set \`${tool.toolset}\` · scope \`${tool.scope}\` · ${hints(listed)} ·` +
      ` ${modelFacingBytes(listed)} model-facing bytes`,
    '',
    prose(listed.description),
    '',
  ];
  const rows = argumentRows(listed.inputSchema, '');
  if (rows.length === 0) {
    lines.push('No arguments.');
    return lines;
  }
  lines.push('| argument | type | required | default | description |', '|---|---|---|---|---|');
  for (const row of rows) {
    lines.push(
      `| \`${row.name}\` | ${cell(row.type)} | ${row.required ? 'yes' : 'no'} | ${
        row.default === undefined ? '' : cell(`\`${JSON.stringify(row.default)}\``)
      } | ${cell(prose(row.description ?? ''))} |`,
    );
  }
  return lines;
}

interface ArgumentRow {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
  description?: string;
}

/**
 * One row per property, nested ones under their path (`data[].range`, `format.bold`): an object's
 * properties follow it, an array of objects' properties follow it with `[]`, in a union as well.
 */
function argumentRows(schema: JsonSchema, prefix: string): ArgumentRow[] {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return [];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    const row: ArgumentRow = {
      name: path,
      type: typeName(property),
      required: required.has(name),
      default: property.default,
      description: property.description as string | undefined,
    };
    return [row, ...nestedRows(property, path)];
  });
}

function nestedRows(schema: JsonSchema, path: string): ArgumentRow[] {
  if (schema.properties) return argumentRows(schema, `${path}.`);
  if (schema.items && typeof schema.items === 'object')
    return nestedRows(schema.items as JsonSchema, `${path}[]`);
  if (Array.isArray(schema.anyOf))
    return (schema.anyOf as JsonSchema[]).flatMap((part) => nestedRows(part, path));
  return [];
}

function typeName(schema: JsonSchema): string {
  if ('const' in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ')}`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeName).join(' or ');
  switch (schema.type) {
    case 'array':
      return schema.items && typeof schema.items === 'object'
        ? `array of ${grouped(typeName(schema.items as JsonSchema))}`
        : 'array';
    case 'object':
      if (
        !schema.properties &&
        schema.additionalProperties &&
        typeof schema.additionalProperties === 'object'
      ) {
        return `map of ${grouped(typeName(schema.additionalProperties as JsonSchema))}`;
      }
      return 'object';
    case 'integer':
    case 'number':
      return String(schema.type);
    case 'string':
      return schema.format ? `string (${String(schema.format)})` : 'string';
    case undefined:
      return 'any';
    default:
      return String(schema.type);
  }
}

/** `a or b` inside another type name: `array of (a or b)`. */
function grouped(type: string): string {
  return type.includes(' or ') ? `(${type})` : type;
}

/** Prose as Markdown shows it as written: `/d/<id>/` is not an HTML tag (code spans are kept). */
function prose(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replaceAll('<', '&lt;')))
    .join('');
}

/** Text safe inside a Markdown table cell (GFM wants `\\|` inside code spans as well). */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Writes every snapshot (removing those of tools no longer registered) and docs/tools.md. */
export async function writeToolSurface(): Promise<{ snapshots: number; removed: string[] }> {
  const surface = await toolSurface();
  mkdirSync(SNAPSHOT_DIR, { recursive: true });
  const names = new Set(surface.map((tool) => tool.name));
  const removed = [...committedSnapshots().keys()].filter((name) => !names.has(name));
  for (const name of removed) rmSync(snapshotPath(name));
  for (const tool of surface)
    writeFileSync(snapshotPath(tool.name), `${JSON.stringify(tool.listed, null, 2)}\n`);
  // In the repository's own JSON format, so that `pnpm lint` passes over the written files.
  execFileSync(path.join(repoRoot, 'node_modules/.bin/biome'), ['format', '--write', SNAPSHOT_DIR], {
    cwd: repoRoot,
    stdio: 'pipe',
  });
  writeFileSync(TOOLS_DOC, renderToolsDoc(surface, await toolsetCosts()));
  return { snapshots: surface.length, removed };
}
