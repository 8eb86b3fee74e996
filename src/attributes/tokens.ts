// encrypted_text support: the one tokenizer used on both sides (ingest values and has_*_tokens query
// values) and the keyed hashing of tokens. Plaintext never leaves this module in stored form: a value
// becomes the set of HMAC-SHA256(project key, attribute name NUL token) digests, truncated to 128 bits
// and hex-encoded. The per-project key is derived from the server secret with HKDF-SHA256 (RFC 5869),
// so projects never share hashes and a leaked index reveals neither the plaintext nor other projects'.
//
// Tokenizer (docs/attributes.md): Unicode NFKC normalisation, lower-casing (locale-independent
// String.prototype.toLowerCase), then Unicode word segmentation (UAX #29 via Intl.Segmenter) keeping
// word-like segments. No stemming, no stop words, no accent folding, no partial words: "Résumé" is the
// token "résumé", "ACME-42" the tokens "acme" and "42".
import crypto from 'node:crypto';

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
/** Bytes kept of each HMAC-SHA256 digest (128 bits; RFC 2104 §5 allows truncation to ≥ half). */
const DIGEST_BYTES = 16;
/** HKDF `info` of the per-project attribute-token key; bump the version to rotate every hash. */
const KEY_INFO = 'docsearch attribute tokens v1';

/**
 * Tokens of an encrypted_text value, distinct, in first-occurrence order.
 * @param text any string (values are at most 2048 characters: the header cap)
 */
export function tokenize(text: string): string[] {
  const out = new Set<string>();
  const norm = text.normalize('NFKC').toLowerCase();
  for (const s of segmenter.segment(norm)) {
    if (s.isWordLike) out.add(s.segment);
  }
  return [...out];
}

/** Hashes tokens with per-project keys derived from one server secret (keys cached per project). */
export class TokenHasher {
  private readonly keys = new Map<string, Buffer>();

  /** @param serverSecret config.serverSecret (≥ 32 characters, or the generated one in the data dir) */
  constructor(private readonly serverSecret: string) {
    if (!serverSecret) throw new Error('TokenHasher needs a non-empty server secret');
  }

  /** 32-byte key of a project: HKDF-SHA256(ikm = server secret, salt = project id, info = KEY_INFO). */
  private keyOf(projectId: string): Buffer {
    let key = this.keys.get(projectId);
    if (!key) {
      key = Buffer.from(crypto.hkdfSync('sha256', this.serverSecret, projectId, KEY_INFO, 32));
      if (this.keys.size >= 10_000) this.keys.clear();
      this.keys.set(projectId, key);
    }
    return key;
  }

  /**
   * Hash already-tokenized tokens of attribute `name`.
   * @returns 32-character lower-case hex strings, one per token, same order
   */
  hashTokens(projectId: string, name: string, tokens: string[]): string[] {
    const key = this.keyOf(projectId);
    return tokens.map((t) => crypto.createHmac('sha256', key).update(`${name}\u0000${t}`).digest().subarray(0, DIGEST_BYTES).toString('hex'));
  }

  /** Tokenize every text and hash the union of their tokens (distinct, first-occurrence order). */
  hashTexts(projectId: string, name: string, texts: string[]): string[] {
    const tokens = new Set<string>();
    for (const t of texts) for (const tok of tokenize(t)) tokens.add(tok);
    return this.hashTokens(projectId, name, [...tokens]);
  }
}
