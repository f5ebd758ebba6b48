import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  REGENERATE_COMMAND,
  renderToolsDoc,
  TOOLS_DOC,
  toolSurface,
  toolsetCosts,
} from './support/tool-surface.ts';

// docs/tools.md is generated from the registry (issue 33, item 4): every tool's set, scope, hints,
// description and arguments, as tools/list shows them.
it('docs/tools.md is what the registry generates now', async () => {
  const generated = renderToolsDoc(await toolSurface(), await toolsetCosts());
  const committed = existsSync(TOOLS_DOC) ? readFileSync(TOOLS_DOC, 'utf8') : '(docs/tools.md is missing)';
  expect(generated, `docs/tools.md is not current: run ${REGENERATE_COMMAND} and commit it`).toBe(committed);
});
