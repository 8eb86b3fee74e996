// The ingest and job_status tools. ingest takes a file path (stdio server only: the path is read on the
// machine the MCP server runs on), a public URL the service fetches, or the bytes as base64; by default
// it follows the job's status stream to the end and reports each change as an MCP progress
// notification (when the client sent a progressToken): percent of 100 moving with the pages parsed and
// chunks embedded, and always a last one when the wait ends, so the agent learns the doc_id in one call.
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readJobProgress, type DocsearchClient, type IngestOptions, type JobStatusEvent, type PublicJob } from '@docsearch/sdk';
import { fail, guarded, ok } from '../results.ts';

/** Pause between the last progress notification and the tool result, ms (see the handler). */
const FINAL_PROGRESS_GAP_MS = 30;

export interface IngestToolOptions {
  /** Accept `path` (a file on this machine). Off for the service's /mcp: remote callers must not read its disk. */
  allowFilePaths: boolean;
}

function outcome(job: PublicJob, last: JobStatusEvent | undefined, name: string): CallToolResult {
  if (!last) return ok({ job_id: job.job_id, status: 'pending', note: 'Not waited for: call job_status with job_id until is_terminal.' });
  if (last.status === 'done') {
    return ok(`Ingested ${name}: doc_id ${last.doc_id} (job ${job.job_id}). It is searchable now; use doc_id with search_in_doc or search's doc_filter.\n${JSON.stringify(last)}`);
  }
  if (last.status === 'failed') {
    return { isError: true, content: [{ type: 'text', text: `Ingest of ${name} failed: ${last.error?.code ?? last.code}: ${last.error?.message ?? ''}\n${JSON.stringify(last)}` }] };
  }
  return ok(`Still ${last.status} after the wait limit: call job_status with job_id ${job.job_id} later.\n${JSON.stringify(last)}`);
}

/** Register ingest and job_status on `server`, working through `client`. */
export function registerIngestTools(server: McpServer, client: DocsearchClient, opts: IngestToolOptions): void {
  const source = opts.allowFilePaths
    ? 'Give exactly one of: path (a local file on the machine running this MCP server), url (a public http(s) URL the service fetches), or content_base64 with filename.'
    : 'Give exactly one of: url (a public http(s) URL the service fetches) or content_base64 with filename.';
  server.registerTool('ingest', {
    title: 'Ingest a document',
    description: `Add a document (PDF, Office, HTML, Markdown, text, e-mail, images, …; the filename extension selects the parser) to the project so it can be searched. ${source} By default waits until the document is indexed (progress notifications while it runs) and returns its doc_id; with wait=false returns the job_id at once (follow it with job_status). Optional typed attributes make it filterable later (call list_attributes first to reuse existing names and types).`,
    inputSchema: z.strictObject({
      ...(opts.allowFilePaths ? { path: z.string().optional().describe('Local file path') } : {}),
      url: z.string().url().optional().describe('Public URL to fetch'),
      content_base64: z.string().optional().describe('The file bytes, base64'),
      filename: z.string().optional().describe('Name with extension (required with content_base64; overrides the path\'s name)'),
      attributes: z.record(z.string(), z.unknown()).optional().describe('Typed attributes, e.g. {"year": 2024, "labels": ["contract"]}; names ^[a-z0-9_]{1,64}$'),
      attribute_schema: z.record(z.string(), z.strictObject({ type: z.string() })).optional().describe('Declared types, needed for datetime and encrypted_text, e.g. {"signed": {"type": "datetime"}}'),
      unencrypted_strings: z.record(z.string(), z.string()).optional().describe('Plain key → value strings (no secrets), filterable with unencrypted_strings_match'),
      wait: z.boolean().optional().describe('Wait for the document to be indexed (default true)'),
      timeout_seconds: z.number().int().min(1).max(3600).optional().describe('Longest wait (default 600)'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  }, async (args, extra) => guarded(async () => {
    const a = args as Record<string, unknown> & { path?: string; url?: string; content_base64?: string; filename?: string };
    const given = [a.path, a.url, a.content_base64].filter((v) => v !== undefined).length;
    if (given !== 1) return fail(new Error(`ingest: ${source}`));
    const ingestOpts: IngestOptions = {
      filename: a.filename,
      attributes: a.attributes as Record<string, unknown> | undefined,
      attributeSchema: a.attribute_schema as Record<string, { type: string }> | undefined,
      unencryptedStrings: a.unencrypted_strings as Record<string, string> | undefined,
      signal: extra.signal,
    };
    let job: PublicJob;
    if (a.path !== undefined) job = await client.ingestFile(a.path, ingestOpts);
    else if (a.url !== undefined) job = await client.ingest(undefined, { ...ingestOpts, remoteUrl: a.url });
    else {
      if (!a.filename) return fail(new Error('ingest: content_base64 needs filename (its extension selects the parser)'));
      job = await client.ingest(Buffer.from(a.content_base64!, 'base64'), ingestOpts);
    }
    const name = job.properties.file.filename || a.url || 'the document';
    if (a.wait === false) return outcome(job, undefined, name);
    const token = extra._meta?.progressToken;
    const timeout = AbortSignal.timeout(1000 * ((a.timeout_seconds as number | undefined) ?? 600));
    let last: JobStatusEvent | undefined;
    let sent = -1;
    let final = false;
    const notify = async (ev: JobStatusEvent, ending: boolean) => {
      const { percent, text } = readJobProgress(ev);
      // MCP progress must increase; the last notification is sent even when the percentage stands still.
      if (token === undefined || (percent <= sent && !ending) || final) return;
      sent = Math.max(sent, percent);
      final = ending;
      const message = `${name}: ${text}${ev.doc_id ? ` (doc_id ${ev.doc_id})` : ''}${ending && !ev.is_terminal ? '; stopped waiting, call job_status' : ''}`;
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: sent, total: 100, message } });
    };
    try {
      for await (const ev of client.watchJob(job.job_id, { signal: AbortSignal.any([timeout, extra.signal]) })) {
        last = ev;
        await notify(ev, ev.is_terminal);
      }
    } catch (err) {
      if (!timeout.aborted) throw err;
    }
    // The stream can end without a terminal event (204: it was already sent); the status says how it ended.
    if (!last?.is_terminal && !timeout.aborted) last = await client.getJobStatus(job.job_id, { signal: extra.signal });
    if (last) await notify(last, true);
    // The MCP TypeScript client handles a notification in a microtask but a response at once, dropping its
    // progress handler: when the last notification and the result arrive in one read (a loaded machine),
    // the last progress ("done") is lost. A short pause puts them in separate writes.
    if (token !== undefined && last) await new Promise((r) => setTimeout(r, FINAL_PROGRESS_GAP_MS));
    return outcome(job, last, name);
  }));

  server.registerTool('job_status', {
    title: 'Status of an ingest job',
    description: 'Current state of an ingest job: status (pending, processing, done, failed), is_terminal, doc_id once done, error {code, message} when failed, attempts.',
    inputSchema: z.strictObject({ job_id: z.string().min(1).describe('The job_id an ingest returned') }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async ({ job_id }) => guarded(async () => ok(await client.getJobStatus(job_id))));
}
