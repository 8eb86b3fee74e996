#!/usr/bin/env node
// `docsearch-mcp`: the MCP server over stdio (runStdio). An installed package runs its built JavaScript
// (dist/, scripts/pack-packages.ts); in the repository, where there is no dist/, the TypeScript source
// runs under tsx.
import fs from 'node:fs';

const built = new URL('../dist/stdio.js', import.meta.url);
let runStdio;
if (fs.existsSync(built)) {
  ({ runStdio } = await import(built.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runStdio } = await import('../src/stdio.ts'));
}
process.exitCode = await runStdio();
