// How tool outcomes become MCP results: text for the model (with JSON where structure matters), and a
// service error as an `isError` result carrying its stable code, so the agent can correct itself
// instead of the call failing at the protocol level.
import { DocsearchError } from '@docsearch/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A successful tool result: plain text, or a value rendered as indented JSON. */
export function ok(value: unknown): CallToolResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return { content: [{ type: 'text', text }] };
}

/** The error result for anything a tool threw (DocsearchError keeps code, HTTP status and details). */
export function fail(err: unknown): CallToolResult {
  if (err instanceof DocsearchError) {
    const details = err.details ? `\ndetails: ${JSON.stringify(err.details)}` : '';
    return { isError: true, content: [{ type: 'text', text: `${err.code} (HTTP ${err.status}): ${err.message}${details}` }] };
  }
  return { isError: true, content: [{ type: 'text', text: (err as Error)?.message ?? String(err) }] };
}

/** Run a tool body and map a throw to fail(). */
export async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    return fail(err);
  }
}
