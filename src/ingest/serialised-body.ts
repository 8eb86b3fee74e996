// Refusing an upload whose body is not the file but the file's bytes serialised as JSON. Generic HTTP
// clients serialise any body object as JSON by default: a Node.js Buffer becomes
// {"type":"Buffer","data":[35,35,…]} and a Uint8Array {"0":35,"1":35,…}. Sent with the right headers,
// such a body would be stored and indexed as the document's text; it is refused while it streams, before
// anything is stored, with 400 unsupported_media_type.
import { finished, Transform, type Readable } from 'node:stream';
import { AppError } from '../internal/errors.ts';

/** Bytes read before deciding: enough for either signature with generous whitespace. */
const PROBE_BYTES = 64;

/** A serialised Node.js Buffer, and a serialised typed array (numeric keys, byte values). */
const SIGNATURES = [
  /^\s*\{\s*"type"\s*:\s*"Buffer"\s*,\s*"data"\s*:\s*\[/,
  /^\s*\{\s*"0"\s*:\s*\d{1,3}\s*,\s*"1"\s*:\s*\d{1,3}\s*[,}]/,
];

/** True when `head` (the first bytes of a body) is a byte array serialised as JSON. */
export function isSerialisedBytes(head: Buffer): boolean {
  const text = head.subarray(0, PROBE_BYTES).toString('latin1');
  return SIGNATURES.some((re) => re.test(text));
}

/**
 * The body stream, passed through unchanged, except that it fails with AppError unsupported_media_type
 * (400) when its first bytes are a byte array serialised as JSON (see isSerialisedBytes).
 */
export function refuseSerialisedBytes(body: Readable): Readable {
  let head: Buffer[] = [];
  let size = 0;
  let decided = false;
  const decide = (push: (b: Buffer) => void): AppError | undefined => {
    decided = true;
    const all = Buffer.concat(head);
    head = [];
    if (isSerialisedBytes(all)) {
      return new AppError('unsupported_media_type', 'The body is a byte array serialised as JSON ({"type":"Buffer","data":[…]}), not the file: '
        + 'send the raw bytes as application/octet-stream (with a generated client, pass the bytes through unserialised).', { expected: 'application/octet-stream' });
    }
    if (all.length > 0) push(all);
    return undefined;
  };
  const guard = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (decided) return cb(null, chunk);
      head.push(chunk);
      size += chunk.length;
      if (size < PROBE_BYTES) return cb();
      cb(decide((b) => this.push(b)));
    },
    flush(cb) {
      cb(decided ? undefined : decide((b) => this.push(b)));
    },
  });
  // Not pipeline(): a refused body must leave the request open for the 400. A body that ends early
  // (the client went away) fails the guard, so the reader does not wait forever.
  finished(body, (err) => { if (err) guard.destroy(err); });
  // The refusal reaches whoever reads the stream (its errored state); a request refused for another
  // reason before its body is read must not turn it into an uncaught 'error' event.
  guard.on('error', () => undefined);
  return body.pipe(guard);
}
