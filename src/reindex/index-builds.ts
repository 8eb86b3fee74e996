// Whether each namespace's index was built by the software this process runs: the embedder, the analyser
// and the table format a table records (storage/index-build.ts) against the running ones. A namespace built
// otherwise still answers, and is reported as needing a reindex: in the namespace's description
// (GET /docsearch/index) and, summed over the active namespaces, on /readyz (docs/reindex.md).
import type { ControlPlane } from '../storage/db.ts';
import type { NamespaceIndex } from '../storage/namespace-index.ts';
import { buildMismatch, type IndexBuild } from '../storage/index-build.ts';

/** A namespace's index as GET /docsearch/index describes it (without the reindex job, added by the route's service). */
export interface IndexDescription {
  namespace: string;
  /** Generation of the serving table (0 until the first reindex). */
  generation: number;
  chunks: number;
  /** What built the serving table; null when the namespace has no table yet. */
  built_with: IndexBuild | null;
  running: IndexBuild;
  needs_reindex: boolean;
  /** One sentence per difference between built_with and running. */
  reasons: string[];
}

/** The /readyz summary over every active namespace (from the control plane's copy of each table's record). */
export interface BuildsReport {
  running: IndexBuild;
  /** Active namespaces that have a table whose build is known. */
  namespaces: number;
  needs_reindex: number;
  /** Active namespaces with a table whose build no process has noted yet (start-up recovery notes each). */
  not_noted: number;
  /** Up to EXAMPLES namespaces needing a reindex, with why. */
  examples: Array<{ project_id: string; namespace: string; reasons: string[] }>;
}

/** Namespaces named in the /readyz summary at most. */
const EXAMPLES = 5;
/** How long a /readyz summary is reused, ms: one control-plane scan of the namespaces per this period at most. */
const REPORT_TTL_MS = 10_000;

export class IndexBuilds {
  private cached?: { at: number; report: Promise<BuildsReport> };

  /** @param running what this process builds (storage/index-build.ts runningBuild with its embedder) */
  constructor(private readonly deps: { cp: ControlPlane; index: NamespaceIndex; running: IndexBuild }) {}

  get running(): IndexBuild {
    return this.deps.running;
  }

  /** Describe one namespace's index (reads its serving table's record). */
  async describe(namespace: string): Promise<IndexDescription> {
    const [built, chunks] = await Promise.all([this.deps.index.describeBuild(namespace), this.deps.index.countChunks(namespace)]);
    const running = this.deps.running;
    const reasons = built ? buildMismatch(built, running) : [];
    const { generation = 0, ...builtWith } = built ?? {};
    return {
      namespace, generation, chunks, built_with: built ? (builtWith as IndexBuild) : null, running,
      needs_reindex: reasons.length > 0, reasons,
    };
  }

  /** The summary /readyz shows, reused for REPORT_TTL_MS. Never rejects the probe: a failed scan is retried next time. */
  report(): Promise<BuildsReport> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > REPORT_TTL_MS) {
      const report = this.scan();
      this.cached = { at: now, report };
      report.catch(() => { this.cached = undefined; });
    }
    return this.cached.report;
  }

  private async scan(): Promise<BuildsReport> {
    const rows = await this.deps.cp.db.selectFrom('projects')
      .innerJoin('namespace_leases', 'namespace_leases.namespace', 'projects.namespace')
      .select(['projects.id as project_id', 'projects.namespace as namespace', 'namespace_leases.built_with as built_with'])
      .where('projects.status', '=', 'active').execute();
    const running = this.deps.running;
    const report: BuildsReport = { running, namespaces: 0, needs_reindex: 0, not_noted: 0, examples: [] };
    for (const r of rows) {
      if (!r.built_with) {
        report.not_noted++;
        continue;
      }
      report.namespaces++;
      let reasons: string[];
      try {
        reasons = buildMismatch(JSON.parse(r.built_with) as IndexBuild, running);
      } catch {
        reasons = ['build record unreadable'];
      }
      if (reasons.length === 0) continue;
      report.needs_reindex++;
      if (report.examples.length < EXAMPLES) report.examples.push({ project_id: r.project_id, namespace: r.namespace, reasons });
    }
    return report;
  }
}
