#!/usr/bin/env node
// `docsearch` command: runs src/main.ts under tsx (TypeScript without a build step) and exits with the
// code it returns (0 ok, 1 error, 2 usage).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
