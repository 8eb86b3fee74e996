// Type resolution of an ingest's attributes against the project's registry (spec "Typed attribute"):
// a fixed type wins and a contradicting declaration is attribute_type_conflict; otherwise the declared
// type, `labels` -> []encrypted_text, or the type inferred from the value. Values are then checked
// against the final type and converted to their stored form, encrypted_text hashed (never kept in
// plaintext). Pure functions: the registry snapshot is passed in, so the same rules run in the fast
// pre-check and again inside the registering transaction.
import { AppError } from '../internal/errors.ts';
import type { AttrValue } from '../storage/namespace-index.ts';
import type { AttributeInput } from './ingest-headers.ts';
import type { TokenHasher } from './tokens.ts';
import { elementOf, isAttributeType, LABELS, MAX_NAMES, storageOf, type AttributeType, type StoredAttributes } from './types.ts';
import { checkValue, inferType, type CheckedValue } from './values.ts';

export interface Resolution {
  /** Final type of every name the request uses (values and declarations). */
  types: Map<string, AttributeType>;
  /** Names the registry does not hold yet, with their type (to be registered). */
  newNames: Map<string, AttributeType>;
  /** Checked values (datetime as epoch ms, encrypted_text still plaintext: hash with toStored). */
  values: Map<string, CheckedValue | null>;
}

/**
 * Resolve and check an ingest's attributes.
 * @param fixed  the project's registry: name -> type
 * @throws AppError attribute_type_conflict (declaration contradicts the fixed type),
 *   attribute_invalid_value (value does not fit, or type not inferable), attribute_limit_reached
 *   (the project would exceed 64 names)
 */
export function resolveAttributes(input: AttributeInput, fixed: ReadonlyMap<string, AttributeType>, maxNames = MAX_NAMES): Resolution {
  const types = new Map<string, AttributeType>();
  const newNames = new Map<string, AttributeType>();
  const values = new Map<string, CheckedValue | null>();
  const names = new Set([...Object.keys(input.values), ...Object.keys(input.declared)]);
  for (const name of names) {
    const has = Object.hasOwn(input.values, name);
    const value = has ? input.values[name] : undefined;
    const declared = Object.hasOwn(input.declared, name) ? input.declared[name] : undefined;
    const current = fixed.get(name);
    if (current !== undefined && declared !== undefined && declared !== current) {
      throw new AppError('attribute_type_conflict', `Attribute "${name}" has type ${current} in this project (fixed by the first document that used it); X-Attribute-Schema declares ${declared}.`, { name, type: current, declared });
    }
    let type = current ?? declared ?? (name === LABELS ? '[]encrypted_text' : undefined);
    if (type === undefined) {
      if (!has) continue; // unreachable: a name is either declared or has a value
      type = inferType(name, value);
    }
    types.set(name, type);
    if (current === undefined) newNames.set(name, type);
    if (has) values.set(name, value === null ? null : checkValue(name, type, value));
  }
  if (newNames.size > 0 && fixed.size + newNames.size > maxNames) {
    throw new AppError('attribute_limit_reached', `This project uses ${fixed.size} of its ${maxNames} attribute names; the request would add ${newNames.size} new name(s): ${[...newNames.keys()].join(', ')}. Reuse an existing name (GET /v3/docsearch/attributes).`, { max_names: maxNames, used: fixed.size, new_names: [...newNames.keys()] });
  }
  return { types, newNames, values };
}

/**
 * Stored form of a resolution's values: encrypted_text and []encrypted_text become the distinct
 * keyed hashes of their tokens (TokenHasher), everything else is kept as checked.
 */
export function toStored(projectId: string, r: Resolution, hasher: TokenHasher): StoredAttributes {
  const out: StoredAttributes = Object.create(null);
  for (const [name, value] of r.values) {
    const type = r.types.get(name)!;
    if (value !== null && elementOf(type) === 'encrypted_text') {
      out[name] = { type, value: hasher.hashTexts(projectId, name, Array.isArray(value) ? (value as string[]) : [value as string]) };
    } else {
      out[name] = { type, value };
    }
  }
  return out;
}

/**
 * Chunk-row attribute values of a stored attribute map (job payload / documents row). Entries that
 * are not {type, value} objects (e.g. a payload written before typed attributes) are skipped.
 */
export function toChunkAttributes(stored: unknown): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = Object.create(null);
  if (!stored || typeof stored !== 'object') return out;
  for (const [name, v] of Object.entries(stored as Record<string, unknown>)) {
    const e = v as { type?: unknown; value?: unknown } | null;
    if (!e || typeof e !== 'object' || !isAttributeType(e.type) || !('value' in e)) continue;
    out[name] = { storage: storageOf(e.type), value: e.value as AttrValue['value'] };
  }
  return out;
}
