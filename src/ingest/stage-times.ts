// Where an ingest job's time goes, stage by stage, so throughput can be read and tuned without a
// profiler: each finished job logs one `ingest stages` line with these times, and every process exports
// them as the Prometheus histogram docsearch_ingest_stage_duration_seconds (internal/metrics.ts). The
// stages follow the pipeline (ingest/pipeline.ts); `write` and `index_refresh` belong to a commit group
// (ingest/commit-groups.ts), which several jobs may share. docs/jobs.md "Stage times" lists them.

/** The stages of an ingest, in pipeline order. */
export const INGEST_STAGES = [
  /** Reading the upload from the blob store (or downloading the remote URL). */
  'load',
  /** Reading the document's text in the parse child (PDF: text runs, layout, OCR), without tables and figures. */
  'parse',
  /** Finding ruled tables and rendering them (PDF). */
  'tables',
  /** Extracting figure images (PDF). */
  'figures',
  /** Chunking, in the parse child. */
  'chunk',
  /** Sending the bytes to the parse child and its result back, and waiting for a free child. */
  'transfer',
  /** Lexical analysis of the chunks: BM25 tokens, term and pair hashes, abbreviations. */
  'analyse',
  /** Embedding the chunks. */
  'embed',
  /** Waiting for the namespace's commit group (another group writing, the writer lease). */
  'commit_wait',
  /** The group's delete of earlier attempts and its append (or merge). */
  'write',
  /** Folding the group's rows into the full-text index, so `done` means searchable. */
  'index_refresh',
  /** Figure and table assets to the blob store and the control-plane transaction that marks the job done. */
  'commit',
] as const;

export type IngestStage = (typeof INGEST_STAGES)[number];

/** Milliseconds per stage; a stage a job did not go through is absent. */
export type IngestStageTimes = Partial<Record<IngestStage, number>>;

/** Stages that run once per commit group rather than once per job. */
export const GROUP_STAGES: ReadonlySet<IngestStage> = new Set(['write', 'index_refresh']);

/** Times the consecutive stages of one job: each `lap` charges the time since the previous one. */
export class StageClock {
  readonly times: IngestStageTimes = {};
  private last = performance.now();

  /** Charge the time since the previous lap (or the start) to `stage` and start the next one. */
  lap(stage: IngestStage): void {
    const now = performance.now();
    this.add(stage, now - this.last);
    this.last = now;
  }

  /** Add `ms` to `stage` without moving the clock (times measured elsewhere, e.g. in the parse child). */
  add(stage: IngestStage, ms: number): void {
    this.times[stage] = (this.times[stage] ?? 0) + Math.max(0, ms);
  }

  /** Milliseconds since the previous lap (or the start), and start the next lap now without charging them. */
  take(): number {
    const now = performance.now();
    const ms = now - this.last;
    this.last = now;
    return ms;
  }

  /** The times rounded to 0.1 ms (for a log line). */
  rounded(): IngestStageTimes {
    return Object.fromEntries(Object.entries(this.times).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  }
}
