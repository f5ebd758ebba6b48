/**
 * `pnpm proto:gen`: lint the .proto files and regenerate proto/gen with buf + ts-proto.
 * `pnpm proto:check`: the same into a temporary folder, failing if the committed proto/gen differs
 * (someone changed a .proto without regenerating, or edited generated code by hand).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const protoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buf = path.join(protoRoot, 'node_modules/.bin/buf');
const run = (args: string[]) => execFileSync(buf, args, { cwd: protoRoot, stdio: 'inherit' });

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

run(['lint']);
if (!process.argv.includes('--check')) {
  run(['generate']);
  process.stdout.write('proto: regenerated proto/gen\n');
} else {
  const scratch = mkdtempSync(path.join(tmpdir(), 'sheetgate-proto-'));
  try {
    run(['generate', '--output', scratch]);
    const committed = path.join(protoRoot, 'gen');
    const fresh = path.join(scratch, 'gen');
    const names = new Set([...listFiles(committed), ...listFiles(fresh)]);
    const stale = [...names].filter((name) => {
      try {
        return !readFileSync(path.join(committed, name)).equals(readFileSync(path.join(fresh, name)));
      } catch {
        return true;
      }
    });
    if (stale.length > 0) {
      process.stderr.write(
        `proto: generated code is stale (${stale.join(', ')}); run \`pnpm proto:gen\` and commit proto/gen\n`,
      );
      process.exit(1);
    }
    process.stdout.write('proto: generated code is current\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
