// What built a namespace's index table, and which table serves it. A table records, in its schema metadata
// beside the embedding signature, the analyser version and the table format it was created with, so a
// process can tell that a namespace was built by other software than its own (the reindex then rebuilds
// it, docs/reindex.md). An online reindex builds a new table, a generation, beside the serving one and
// switches the namespace to it in the control plane; generationTable() names each generation's table.
import { ANALYSER_VERSION } from '../analysis/analyzer.ts';
import { PACK_VERSION } from './lance-pack.ts';
import type { EmbeddingSignature } from './namespace-index.ts';

/** Schema-metadata key of a table's build record (analyser and format; the embedder has its own key). */
export const BUILD_KEY = 'docsearch.build';

/**
 * The table format this version creates: rows with the packed search cell (lance-pack.ts) in format
 * PACK_VERSION. Tables without the packed column are format `columns`.
 */
export const TABLE_FORMAT = `packed-${PACK_VERSION}`;

/** What built (or builds) a namespace's table. */
export interface IndexBuild {
  embedder: EmbeddingSignature;
  /** Analyser version (analysis/analyzer.ts ANALYSER_VERSION); null when the table predates build records. */
  analyser: number | null;
  /** TABLE_FORMAT of the creating process; `columns` for a table without packed cells, `packed` when unrecorded. */
  format: string;
}

/** The build record this process writes into the tables it creates (the embedder is the caller's). */
export function runningBuild(embedder: EmbeddingSignature): IndexBuild {
  return { embedder, analyser: ANALYSER_VERSION, format: TABLE_FORMAT };
}

/** The schema-metadata value of a new table's build record. */
export function encodeBuild(): string {
  return JSON.stringify({ analyser: ANALYSER_VERSION, format: TABLE_FORMAT });
}

/**
 * A table's build record from its schema metadata: the recorded analyser and format, else (a table created
 * before records were kept) analyser null and the format its columns show.
 */
export function decodeBuild(raw: string | undefined, embedder: EmbeddingSignature, packColumn: boolean): IndexBuild {
  if (raw) {
    try {
      const r = JSON.parse(raw) as { analyser?: unknown; format?: unknown };
      return { embedder, analyser: typeof r.analyser === 'number' ? r.analyser : null, format: String(r.format ?? 'unknown') };
    } catch {
      // an unreadable record counts as none
    }
  }
  return { embedder, analyser: null, format: packColumn ? 'packed' : 'columns' };
}

/**
 * Why a table built as `built` needs a reindex to match `running`: one sentence per difference, [] when
 * none. A table without an analyser record needs one (what analysed it is unknown).
 */
export function buildMismatch(built: IndexBuild, running: IndexBuild): string[] {
  const reasons: string[] = [];
  const e = built.embedder, r = running.embedder;
  if (e.provider !== r.provider || e.model !== r.model || e.dimension !== r.dimension) {
    reasons.push(`embedder ${e.provider}/${e.model} (${e.dimension}-d), running ${r.provider}/${r.model} (${r.dimension}-d)`);
  }
  if (built.analyser === null) reasons.push(`analyser not recorded, running version ${running.analyser}`);
  else if (built.analyser !== running.analyser) reasons.push(`analyser version ${built.analyser}, running ${running.analyser}`);
  if (built.format !== running.format) reasons.push(`table format ${built.format}, running ${running.format}`);
  return reasons;
}

/** Generations a namespace's tables carry in their name: `<namespace>__g<n>`; generation 0 is the bare name. */
const GENERATION_SUFFIX = '__g';

/**
 * The Lance table of one generation of a namespace: the namespace's own name for generation 0 (every table
 * created before reindexing existed), `<namespace>__g<n>` after. Project namespaces are `ns_` + 32 hex, so no
 * generation's name is another namespace's.
 */
export function generationTable(namespace: string, generation: number): string {
  return generation === 0 ? namespace : `${namespace}${GENERATION_SUFFIX}${generation}`;
}
