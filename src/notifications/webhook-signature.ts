// Signing of completion webhooks in the Standard Webhooks style (https://www.standardwebhooks.com,
// spec "Verifying webhook authenticity"): the signed content is `${webhook-id}.${webhook-timestamp}.${body}`,
// the key is the base64-decoded part of a `whsec_…` secret, the MAC is HMAC-SHA256, and the header
// `webhook-signature` carries space-separated `v1,<base64 MAC>` entries. `verifyWebhook` is what a
// receiver runs (docs/webhooks.md shows the same steps for other languages).
import crypto from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks allows 24–64 bytes). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * The `webhook-signature` value for one message.
 * @param secret    `whsec_…`
 * @param msgId     the `webhook-id` (stable across retries of one event)
 * @param timestamp the `webhook-timestamp`, integer seconds since the Unix epoch
 * @param body      the exact request body
 */
export function signWebhook(secret: string, msgId: string, timestamp: number, body: string): string {
  const mac = crypto.createHmac('sha256', keyOf(secret)).update(`${msgId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Verify a received webhook.
 * @param headers   request headers (lower-case names)
 * @param body      the raw body exactly as received (not re-serialised JSON)
 * @param toleranceSec  maximum age/skew of webhook-timestamp (default 5 min, against replay)
 * @returns true when one of the v1 signatures matches and the timestamp is within tolerance
 */
export function verifyWebhook(secret: string, headers: Record<string, string | string[] | undefined>, body: string, toleranceSec = 300, nowSec = Math.floor(Date.now() / 1000)): boolean {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const id = one(headers['webhook-id']);
  const ts = Number(one(headers['webhook-timestamp']));
  const sigs = one(headers['webhook-signature']);
  if (!id || !Number.isInteger(ts) || !sigs) return false;
  if (Math.abs(nowSec - ts) > toleranceSec) return false;
  const expected = Buffer.from(signWebhook(secret, id, ts, body).slice(3), 'base64');
  return sigs.split(' ').some((entry) => {
    const [version, mac] = entry.split(',', 2);
    if (version !== 'v1' || !mac) return false;
    const got = Buffer.from(mac, 'base64');
    return got.length === expected.length && crypto.timingSafeEqual(got, expected);
  });
}
