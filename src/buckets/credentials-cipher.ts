// Source credentials of bucket tasks are stored encrypted at rest: AES-256-GCM with a key derived from
// the server secret by HKDF-SHA256 (RFC 5869), a fresh 96-bit IV per encryption (NIST SP 800-38D §8.2),
// and the task id as additional authenticated data, so a ciphertext copied onto another task's row does
// not decrypt. They are decrypted only inside the task driver and never returned or logged.
import crypto from 'node:crypto';

const VERSION = 'v1';
const HKDF_SALT = 'docsearch/bucket-credentials';
const HKDF_INFO = 'aes-256-gcm key v1';

export class CredentialCipher {
  private readonly key: Buffer;

  /** @param serverSecret config.serverSecret (≥ 32 characters) */
  constructor(serverSecret: string) {
    if (!serverSecret) throw new Error('CredentialCipher needs the server secret');
    this.key = Buffer.from(crypto.hkdfSync('sha256', serverSecret, HKDF_SALT, HKDF_INFO, 32));
  }

  /**
   * Encrypt a JSON-serialisable value bound to `aad` (the task id).
   * @returns `v1.<iv>.<tag>.<ciphertext>`, each part base64url
   */
  encrypt(value: unknown, aad: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  /**
   * Decrypt what `encrypt` produced for the same `aad`.
   * @throws Error when the text is malformed, was made with another server secret, or was tampered with
   */
  decrypt<T>(text: string, aad: string): T {
    const [version, iv, tag, ct] = text.split('.');
    if (version !== VERSION || !iv || !tag || ct === undefined) throw new Error('stored bucket credentials have an unknown format');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as T;
  }
}
