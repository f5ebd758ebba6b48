/**
 * Writes server.json for the official MCP Registry (server-json.ts):
 *
 *   MCP_REGISTRY_NAME=com.example/sheetgate BASE_URL=https://sheets.example.com \
 *     pnpm registry:server-json [path]        # default: ./server.json
 *
 * The version is services/mcp/package.json's. Prints the path written; a bad setting is one line
 * on stderr and exit status 78 (EX_CONFIG), as the services do.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildServerJson, readServerJsonSettings } from './server-json.ts';

const MCP_PACKAGE = new URL('../../services/mcp/package.json', import.meta.url);

let settings: ReturnType<typeof readServerJsonSettings>;
try {
  settings = readServerJsonSettings(process.env);
} catch (error) {
  process.stderr.write(`registry:server-json: ${(error as Error).message}\n`);
  process.exit(78);
}
const { version } = JSON.parse(readFileSync(MCP_PACKAGE, 'utf8')) as { version: string };
// pnpm runs scripts from the workspace root; a relative path means where the operator ran it.
const target = path.resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2] ?? 'server.json');
writeFileSync(target, `${JSON.stringify(buildServerJson(settings, version), null, 2)}\n`);
process.stdout.write(`${target}\n`);
