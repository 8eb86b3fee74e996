// Keeps Node's own built-ins after parser libraries are loaded. pdfjs-dist's legacy build (and its worker)
// bundles core-js, which on Node 20 REPLACES built-ins that Node already has with JavaScript versions:
// `Array.prototype.push` (core-js's feature test fails on V8's length-overflow behaviour) and `JSON.parse`
// (no source-text access). Every push in the process then runs the polyfill: on the FinanceBench filings it
// was 13% of a parse child's CPU (profile: `push` 9.4% self, `set length` and its setter 3.5%), and a
// parse took 41 instead of 49 CPU ms per page once the native push was back (bench/ingest-throughput.ts,
// docs/decisions/2026-11-29-ingest-throughput.md). Only properties that existed before a library loaded
// are put back; what a library adds (methods Node lacks) stays.

/** Built-in objects whose existing properties are kept native. */
const GUARDED: Array<[string, object | undefined]> = [
  ['Array.prototype', Array.prototype], ['JSON', JSON], ['Math', Math], ['Promise', Promise],
  ['Map.prototype', Map.prototype], ['Set.prototype', Set.prototype], ['WeakMap.prototype', WeakMap.prototype],
  ['Object', Object], ['String.prototype', String.prototype], ['URL', URL],
];

/** The native descriptors, taken when this module is first evaluated (before any parser library is loaded). */
const NATIVE = GUARDED.map(([name, target]) => [name, target, target ? Object.getOwnPropertyDescriptors(target) : {}] as const);

/**
 * Put back every guarded built-in that a library replaced since start-up.
 * @returns the names of the properties put back (e.g. `Array.prototype.push`)
 */
export function restoreNativeBuiltins(): string[] {
  const restored: string[] = [];
  for (const [name, target, descriptors] of NATIVE) {
    if (!target) continue;
    for (const [key, native] of Object.entries(descriptors)) {
      const now = Object.getOwnPropertyDescriptor(target, key);
      if (!now || !('value' in native) || now.value === native.value || !native.configurable) continue;
      Object.defineProperty(target, key, native);
      restored.push(`${name}.${key}`);
    }
  }
  return restored;
}

/** Run `load` (an import of a parser library) and then put back the built-ins it replaced. */
export async function withNativeBuiltins<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } finally {
    restoreNativeBuiltins();
  }
}
