/**
 * `pnpm proto:gen` (`node scripts/generate.ts`): lint the .proto files, then regenerate proto/gen
 * with buf + ts-proto.
 * `pnpm proto:check` (`--check`): lint, then generate into a temporary folder and fail if the
 * committed proto/gen differs (someone changed a .proto without regenerating, or edited generated
 * code by hand).
 * `pnpm --filter @sheetgate/proto lint` (`--lint`): lint only.
 *
 * Lint is `buf lint` (STANDARD rules) plus `buf format` (the files must be formatted as buf
 * formats them). Everything runs from node_modules: no network.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const protoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buf = path.join(protoRoot, 'node_modules/.bin/buf');

function fail(message: string): never {
  process.stderr.write(`proto: ${message}\n`);
  process.exit(1);
}

function run(args: string[], failure: string) {
  try {
    execFileSync(buf, args, { cwd: protoRoot, stdio: 'inherit' });
  } catch {
    fail(failure);
  }
}

function listFiles(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

/** The files that differ between the committed and the freshly generated folder, described. */
function staleFiles(committed: string, fresh: string): string[] {
  const names = [...new Set([...listFiles(committed), ...listFiles(fresh)])].sort();
  return names.flatMap((name) => {
    const a = path.join(committed, name);
    const b = path.join(fresh, name);
    if (!existsSync(a)) return [`${name} (not committed)`];
    if (!existsSync(b)) return [`${name} (no longer generated)`];
    return readFileSync(a).equals(readFileSync(b)) ? [] : [name];
  });
}

function lint() {
  run(['lint'], 'buf lint failed (see above); fix the .proto files');
  run(
    ['format', '--diff', '--exit-code'],
    'a .proto file is not formatted (diff above); run `proto/node_modules/.bin/buf format -w` in proto/',
  );
}

const mode = process.argv.includes('--check') ? 'check' : process.argv.includes('--lint') ? 'lint' : 'gen';

lint();
if (mode === 'gen') {
  run(['generate'], 'buf generate failed (see above)');
  process.stdout.write('proto: regenerated proto/gen\n');
} else if (mode === 'check') {
  const scratch = mkdtempSync(path.join(tmpdir(), 'sheetgate-proto-'));
  let stale: string[] | undefined;
  try {
    execFileSync(buf, ['generate', '--output', scratch], { cwd: protoRoot, stdio: 'inherit' });
    stale = staleFiles(path.join(protoRoot, 'gen'), path.join(scratch, 'gen'));
  } catch {
    // reported below, once the scratch folder is gone
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (stale === undefined) fail('buf generate failed (see above)');
  if (stale.length > 0) {
    fail(`generated code is stale (${stale.join(', ')}); run \`pnpm proto:gen\` and commit proto/gen`);
  }
  process.stdout.write('proto: generated code is current\n');
} else {
  process.stdout.write('proto: lint clean\n');
}
