// The typed-attribute domain as the rest of docsearch sees it: ingest-time checking and registration
// (pre-check before the upload, registration + hashing right before the job is created, so a rejected
// request leaves nothing behind and the job payload never holds encrypted_text plaintext), the attribute
// list of GET /docsearch/attributes, and the search prefilter. Control-plane failures become 503
// backend_unavailable with Retry-After — the list is never answered empty because it could not be read.
import type { Logger } from 'pino';
import { AppError, isAppError } from '../internal/errors.ts';
import type { ControlPlane } from '../storage/db.ts';
import type { AttrExpr } from '../storage/namespace-index.ts';
import { buildAttributeFilter, type AttributeFilterRequest } from './filters.ts';
import type { AttributeInput } from './ingest-headers.ts';
import { AttributeRegistry } from './registry.ts';
import { resolveAttributes, toStored } from './resolve.ts';
import { TokenHasher } from './tokens.ts';
import { LABELS, MAX_NAMES, META_INT_1, META_INT_2, type AttributeDef, type AttributeType, type StoredAttributes } from './types.ts';

/** Seconds a client should wait before retrying after the registry could not be read. */
const RETRY_AFTER_SECONDS = 2;

/** Body of GET /docsearch/attributes (spec "Attribute list response"). */
export interface AttributeListResponse {
  attributes: AttributeDef[];
  max_names: number;
  note: string;
}

const NOTE =
  'Each attribute name keeps the type of the first document that used it, forever; a project may use at most ' +
  `${MAX_NAMES} names. Reuse an existing name and type before introducing a new one. datetime and encrypted_text ` +
  `(and their arrays) must be declared in X-Attribute-Schema; "${LABELS}" is always []encrypted_text; the legacy ` +
  `headers X-Labels, X-Meta-Int-1 and X-Meta-Int-2 write "${LABELS}", "${META_INT_1}" and "${META_INT_2}".`;

export class AttributeService {
  readonly registry: AttributeRegistry;
  readonly hasher: TokenHasher;
  /** Registered types per project; types never change, so a hit is always right (misses re-read). */
  private readonly known = new Map<string, Map<string, AttributeType>>();

  constructor(private readonly deps: { cp: ControlPlane; serverSecret: string; logger?: Logger }) {
    this.registry = new AttributeRegistry(deps.cp);
    this.hasher = new TokenHasher(deps.serverSecret);
  }

  /**
   * Check an ingest's attributes against the current registry without registering anything (called
   * before the body is uploaded, so a bad request fails fast).
   * @throws AppError as resolveAttributes documents; backend_unavailable (503) when the registry is unreadable
   */
  async precheck(projectId: string, input: AttributeInput): Promise<void> {
    if (isEmpty(input)) return;
    const fixed = await this.unavailableOnError(() => this.registry.snapshot(projectId));
    resolveAttributes(input, fixed);
  }

  /**
   * Register the request's new names (atomically; concurrent first uses end with one type) and return
   * the stored form of its values (encrypted_text hashed).
   * @throws AppError as resolveAttributes documents (the registry may have changed since precheck);
   *   backend_unavailable (503) on a control-plane failure
   */
  async commit(projectId: string, input: AttributeInput): Promise<StoredAttributes> {
    if (isEmpty(input)) return Object.create(null) as StoredAttributes;
    const resolution = await this.unavailableOnError(() =>
      this.registry.register(projectId, (fixed) => {
        const r = resolveAttributes(input, fixed);
        return { newNames: r.newNames, result: r };
      }),
    );
    this.known.delete(projectId);
    return toStored(projectId, resolution, this.hasher);
  }

  /** GET /docsearch/attributes. @throws AppError backend_unavailable (503, Retry-After) when unreadable */
  async list(projectId: string): Promise<AttributeListResponse> {
    const attributes = await this.unavailableOnError(() => this.registry.list(projectId));
    return { attributes, max_names: MAX_NAMES, note: NOTE };
  }

  /**
   * The attribute prefilter of a search (see filters.ts buildAttributeFilter).
   * @returns undefined without attribute conditions; {kind: 'false'} when a name was never used
   * @throws AppError unsupported_operator / attribute_invalid_value (400), backend_unavailable (503)
   */
  async searchFilter(projectId: string, req: AttributeFilterRequest): Promise<AttrExpr | undefined> {
    const names = referencedNames(req);
    if (names.length === 0) return undefined;
    let fixed = this.known.get(projectId);
    if (!fixed || names.some((n) => !fixed!.has(n))) {
      fixed = await this.unavailableOnError(() => this.registry.snapshot(projectId));
      if (this.known.size >= 1000) this.known.clear();
      this.known.set(projectId, fixed);
    }
    return buildAttributeFilter(projectId, req, fixed, this.hasher);
  }

  /** Forget a deleted project's registry. */
  async purge(projectId: string): Promise<void> {
    this.known.delete(projectId);
    await this.registry.purge(projectId);
  }

  private async unavailableOnError<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isAppError(err)) throw err;
      this.deps.logger?.error({ err }, 'attribute registry unavailable');
      throw new AppError('backend_unavailable', 'The attribute registry cannot be read right now; retry with backoff.', undefined, RETRY_AFTER_SECONDS);
    }
  }
}

function isEmpty(input: AttributeInput): boolean {
  return Object.keys(input.values).length === 0 && Object.keys(input.declared).length === 0;
}

/** Attribute names a search request's conditions refer to (typed clauses and legacy fields). */
function referencedNames(req: AttributeFilterRequest): string[] {
  const names = (req.attribute_filters ?? []).map((c) => c.attr);
  if ((req.meta_tags_any?.length ?? 0) > 0 || (req.meta_tags_all?.length ?? 0) > 0) names.push(LABELS);
  if (req.meta_int_1_gte !== undefined || req.meta_int_1_lte !== undefined) names.push(META_INT_1);
  if (req.meta_int_2_gte !== undefined || req.meta_int_2_lte !== undefined) names.push(META_INT_2);
  return names;
}
