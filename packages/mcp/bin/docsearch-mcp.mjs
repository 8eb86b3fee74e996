#!/usr/bin/env node
// `docsearch-mcp`: the MCP server over stdio (src/stdio.ts), run under tsx without a build step.
import { register } from 'tsx/esm/api';

register();
const { runStdio } = await import('../src/stdio.ts');
process.exitCode = await runStdio();
