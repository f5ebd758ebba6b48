/**
 * `pnpm tools:gen`: writes each tool's snapshot (services/mcp/test/tool-surface/<tool>.json) and
 * docs/tools.md from the registry, as `tools/list` shows them. Run it on purpose after changing a
 * tool, and read the diff: it is what clients and models will see. `pnpm test` checks both
 * (tool-surface.test.ts, tools-doc.test.ts).
 */
import path from 'node:path';
import { SNAPSHOT_DIR, TOOLS_DOC, writeToolSurface } from './tool-surface.ts';

const { snapshots, removed } = await writeToolSurface();
const where = (file: string) => path.relative(process.cwd(), file);
process.stdout.write(`tools: ${snapshots} snapshots in ${where(SNAPSHOT_DIR)}, ${where(TOOLS_DOC)}\n`);
for (const name of removed) process.stdout.write(`tools: removed the snapshot of ${name} (no such tool)\n`);
