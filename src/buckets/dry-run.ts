// POST /docsearch/ingestBucket with dry_run: validate the endpoint (SSRF guard), the credentials and
// access (list, then read one object), and report a sample of what the task would take plus — when the
// bucket is in another region than this deployment — a rough egress-cost estimate. Nothing is created.
// The listing is bounded (DRY_RUN_PAGES pages) so a dry run of a huge bucket stays fast; the estimate is
// then a lower bound and says so.
import type { NetGuard } from '../internal/net-guard.ts';
import { isSourceError, openSource, type SourceCredentials, type SourceSpec } from './sources/index.ts';
import { objectFilter } from './object-filter.ts';
import { CROSS_REGION_USD_PER_GB, LIST_PAGE_SIZE, MAX_FILE_BYTES, MAX_TASK_BYTES } from './limits.ts';

/** Listing pages a dry run reads (see the header), and objects it shows in `sample`. */
const DRY_RUN_PAGES = 10;
const SAMPLE_SIZE = 20;

export interface DryRunReport {
  dry_run: true;
  /** True when the endpoint, listing and a read all worked. */
  valid: boolean;
  checks: { endpoint: string; list: string; read: string };
  error?: { code: string; message: string };
  source: { type: string; bucket: string; prefix: string; region: string | null; endpoint: string | null };
  filter_glob: string | null;
  bucket_location: string | null;
  home_region: string | null;
  /** null when either region is unknown. */
  cross_region: boolean | null;
  sample: Array<{ key: string; size: number }>;
  objects_listed: number;
  objects_matched: number;
  bytes_matched: number;
  objects_too_large: number;
  /** False when the bounded listing stopped before the end of the bucket (counts are lower bounds). */
  listing_complete: boolean;
  would_reach_file_cap: boolean;
  would_reach_task_size_limit: boolean;
  egress_estimate: { bytes: number; usd: number; usd_per_gb: number; lower_bound: boolean; basis: string } | null;
  acknowledge_egress_cost_required: boolean;
}

const ERROR_CODES: Record<string, string> = {
  auth: 'source_access_denied', bucket_not_found: 'bucket_not_found', forbidden_endpoint: 'remote_url_forbidden',
  transient: 'source_unreachable', invalid: 'source_invalid', object_not_found: 'object_not_found',
};

/**
 * Run the dry run.
 * @param homeRegion config.buckets.region (this deployment's region), if set
 */
export async function dryRun(spec: SourceSpec, creds: SourceCredentials, filterGlob: string | null, net: NetGuard, homeRegion: string | undefined, fileCap: number): Promise<DryRunReport> {
  const report: DryRunReport = {
    dry_run: true, valid: false, checks: { endpoint: spec.endpoint ? 'not_checked' : 'not_applicable', list: 'not_checked', read: 'not_checked' },
    source: { type: spec.type, bucket: spec.bucket, prefix: spec.prefix, region: spec.region ?? null, endpoint: spec.endpoint ?? null },
    filter_glob: filterGlob, bucket_location: null, home_region: homeRegion?.toLowerCase() ?? null, cross_region: null,
    sample: [], objects_listed: 0, objects_matched: 0, bytes_matched: 0, objects_too_large: 0, listing_complete: false,
    would_reach_file_cap: false, would_reach_task_size_limit: false, egress_estimate: null, acknowledge_egress_cost_required: false,
  };
  const filter = objectFilter(spec.prefix, filterGlob);
  const fail = (stage: 'endpoint' | 'list' | 'read', err: unknown): DryRunReport => {
    const kind = isSourceError(err) ? err.kind : 'invalid';
    report.checks[stage] = kind === 'auth' ? 'denied' : kind;
    report.error = { code: ERROR_CODES[kind] ?? 'source_invalid', message: (err as Error).message };
    return report;
  };
  let source;
  try {
    source = await openSource(spec, creds, net);
    if (spec.endpoint) report.checks.endpoint = 'ok';
  } catch (err) {
    return fail('endpoint', err);
  }
  try {
    let cursor: string | null = null;
    for (let page = 0; page < DRY_RUN_PAGES; page++) {
      let r;
      try {
        r = await source.list(cursor, LIST_PAGE_SIZE);
      } catch (err) {
        return fail('list', err);
      }
      report.objects_listed += r.objects.length;
      for (const o of r.objects) {
        if (!filter(o.key)) continue;
        report.objects_matched++;
        if (o.size > MAX_FILE_BYTES) report.objects_too_large++;
        else report.bytes_matched += o.size;
        if (report.sample.length < SAMPLE_SIZE) report.sample.push({ key: o.key, size: o.size });
      }
      cursor = r.nextCursor;
      if (!cursor) { report.listing_complete = true; break; }
    }
    report.checks.list = 'ok';
    const probe = report.sample.find((s) => s.size <= MAX_FILE_BYTES);
    if (probe) {
      try {
        const stream = await source.open(probe.key);
        stream.destroy();
        report.checks.read = 'ok';
      } catch (err) {
        return fail('read', err);
      }
    }
    report.bucket_location = (await source.location().catch(() => null)) ?? spec.region?.toLowerCase() ?? null;
  } finally {
    source.close();
  }
  report.valid = true;
  report.would_reach_file_cap = report.objects_matched > fileCap;
  report.would_reach_task_size_limit = report.bytes_matched > MAX_TASK_BYTES;
  if (report.bucket_location && report.home_region) {
    report.cross_region = report.bucket_location !== report.home_region;
    if (report.cross_region) {
      const bytes = Math.min(report.bytes_matched, MAX_TASK_BYTES);
      report.egress_estimate = {
        bytes, usd: Math.round((bytes / 1e9) * CROSS_REGION_USD_PER_GB * 100) / 100, usd_per_gb: CROSS_REGION_USD_PER_GB,
        lower_bound: !report.listing_complete,
        basis: `Inter-region transfer list price ($${CROSS_REGION_USD_PER_GB}/GB) from ${report.bucket_location} to ${report.home_region}; internet egress or other providers cost more.`,
      };
      report.acknowledge_egress_cost_required = true;
    }
  }
  return report;
}
