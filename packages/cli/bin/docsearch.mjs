#!/usr/bin/env node
// `docsearch` command: runs main() and exits with the code it returns (0 ok, 1 error, 2 usage). An
// installed package runs its built JavaScript (dist/, scripts/pack-packages.ts); in the repository,
// where there is no dist/, the TypeScript source runs under tsx.
import fs from 'node:fs';

const built = new URL('../dist/main.js', import.meta.url);
let main;
if (fs.existsSync(built)) {
  ({ main } = await import(built.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
