import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The repository explains itself: comments and docs cite docs/design.md, never a document that
// lives outside the repository, and every section they cite exists.

const root = path.resolve(import.meta.dirname, '..');
const DESIGN_DOC = 'docs/design.md';
const SCANNED = /\.(ts|md|ya?ml|sh|json|proto|sql|conf)$/;
const THIS_FILE = 'test-e2e/docs-citations.test.ts';

/** Citations of documents outside the repository (the design plan, its performance notes, the spec). */
const OUTSIDE_CITATIONS: Array<[string, RegExp]> = [
  ['the design plan', /\bDESIGN\b/],
  ['the performance notes', /PERFORMANCE\.md/],
  ['the service specification', /service-spec(?!ific)|seed\/service|the seed['’]s\b/],
  ['a folder beside the repository', /\.\.\/shared\b/],
];

/**
 * `../shared` that names a folder inside the repository from where it is written (an import of
 * `services/mcp/views/shared/…` from a view) is no citation of the folder beside it.
 */
function namesFolderInside(file: string, line: string): boolean {
  const paths = line.match(/(?:\.\.\/)+shared\b/g) ?? [];
  return paths.every((relative) => {
    const resolved = path.resolve(root, path.dirname(file), relative);
    return resolved.startsWith(`${root}${path.sep}`) && existsSync(resolved);
  });
}

/** `docs/design.md §7.1–7.2 and §8`, `docs/design.md §6, §10`: the path, then one or more sections. */
const CITATION = /docs\/design\.md((?:(?:\s*,|\s+and|\s*[–-])?\s*§\d+(?:\.\d+)*)+)/g;
/** `design.md#12-lifecycle-behaviours-of-the-specification`, from any folder. */
const ANCHOR_LINK = /design\.md#([a-z0-9-]+)/g;

function trackedFiles(): string[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  return listing.split('\0').filter((file) => SCANNED.test(file) && file !== THIS_FILE);
}

function read(file: string): string {
  return readFileSync(path.join(root, file), 'utf8');
}

/** Section numbers and GitHub anchors of the headings of docs/design.md. */
function designHeadings(): { sections: Set<string>; anchors: Set<string> } {
  const sections = new Set<string>();
  const anchors = new Set<string>();
  for (const line of read(DESIGN_DOC).split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const title = heading[1]!.trim();
    const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(title);
    if (number) sections.add(number[1]!);
    anchors.add(
      title
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return { sections, anchors };
}

describe('documentation citations', () => {
  const files = trackedFiles();

  it('scans the tracked sources and docs', () => {
    expect(files).toContain(DESIGN_DOC);
    expect(files.length).toBeGreaterThan(100);
  });

  it('never cite a document outside the repository', () => {
    const found: string[] = [];
    for (const file of files) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          for (const [what, pattern] of OUTSIDE_CITATIONS)
            if (
              pattern.test(line) &&
              !(what === 'a folder beside the repository' && namesFolderInside(file, line))
            )
              found.push(`${file}:${index + 1} cites ${what}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('cite only sections and anchors that docs/design.md has', () => {
    const { sections, anchors } = designHeadings();
    expect(sections.size).toBeGreaterThan(20);
    const missing: string[] = [];
    let citations = 0;
    for (const file of files) {
      const text = read(file);
      for (const match of text.matchAll(CITATION)) {
        for (const [, section] of match[1]!.matchAll(/§(\d+(?:\.\d+)*)/g)) {
          citations++;
          if (!sections.has(section!)) missing.push(`${file}: §${section} (in "${match[0]}")`);
        }
      }
      for (const [, anchor] of text.matchAll(ANCHOR_LINK)) {
        citations++;
        if (!anchors.has(anchor!)) missing.push(`${file}: #${anchor}`);
      }
    }
    expect(missing).toEqual([]);
    // The code does cite the design; a pattern that stopped matching would pass vacuously.
    expect(citations).toBeGreaterThan(50);
  });
});
