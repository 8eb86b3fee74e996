// The one guard for every outbound request the service makes (X-Remote-URL fetches, completion
// webhooks, model HTTP providers): only http(s), and never loopback, private, link-local, CGNAT,
// multicast or cloud-metadata addresses — checked on the literal host, after DNS resolution (at connect
// time, so DNS rebinding cannot slip through) and on every redirect hop — unless the operator lists the
// host or range in DOCSEARCH_ALLOWED_PRIVATE_HOSTS. IPv6 targets must be global unicast (2000::/3) outside
// every special range: IPv4-compatible (::/96, e.g. [::127.0.0.1]), NAT64 (64:ff9b::/96), 6to4, Teredo,
// documentation and the rest are refused; an IPv4-mapped address is judged as its IPv4.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { AppError } from './errors.ts';

/** IPv6 global unicast (RFC 4291 §2.4): the only IPv6 block outbound requests may reach. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * True for a public address: IPv4 in no special range (ipaddr.js range 'unicast': not private,
 * loopback, link-local, CGNAT, reserved, multicast, broadcast…); IPv6 inside 2000::/3 and in no special
 * range (ipaddr.js calls everything outside its named ranges 'unicast', ::/96 included, hence the prefix).
 */
export function isPublicAddress(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  return (ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6) && ip.range() === 'unicast';
}

/**
 * A host name as every guard decision compares it: lower-case, without IPv6 brackets and without the
 * trailing dots of a fully qualified name ("localhost." and "LOCALHOST" are localhost; DNS and the URL
 * parser treat them alike, so the guard must too).
 */
export function normaliseHost(host: string): string {
  return host.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
}

/** Names that always mean this machine or a cloud metadata service, whatever DNS says (RFC 6761 §6.3: *.localhost). */
const LOCAL_NAMES = /^(?:(?:[^.]+\.)*localhost|metadata\.google\.internal)$/;

export interface GuardedResponse {
  /** Final URL after redirects. */
  url: string;
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * Read a response body into memory, at most `maxBytes` bytes.
 * @returns the body, or null when it is longer (the rest is not read: the stream is destroyed)
 * @throws whatever the stream throws (connection reset, abort)
 */
export async function readBodyCapped(body: GuardedResponse['body'], maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export class NetGuard {
  private readonly allowHosts: Set<string>;
  private readonly allowCidrs: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  private readonly agent: Agent;

  /** @param allowedPrivate hostnames or CIDRs (e.g. "127.0.0.1/32", "minio.internal") that may be reached. */
  constructor(allowedPrivate: string[]) {
    this.allowHosts = new Set(allowedPrivate.filter((h) => !h.includes('/')).map(normaliseHost));
    this.allowCidrs = allowedPrivate.filter((h) => h.includes('/')).map((c) => ipaddr.parseCIDR(c));
    this.agent = new Agent({
      connect: {
        lookup: (hostname, options, callback) => {
          dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
            if (err) return callback(err, '', 0);
            const list = addresses as dns.LookupAddress[];
            const bad = list.find((a) => !this.addressAllowed(a.address, hostname));
            if (bad) {
              const e = new Error(`address ${bad.address} of ${hostname} is not public`) as Error & { code: string };
              e.code = 'EADDRNOTALLOWED';
              return callback(e, '', 0);
            }
            if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
            return callback(null, list[0].address, list[0].family);
          });
        },
      },
    });
  }

  /** True when `address` (an IP literal) may be contacted for `hostname`. */
  addressAllowed(address: string, hostname?: string): boolean {
    if (hostname && this.allowHosts.has(normaliseHost(hostname))) return true;
    if (!ipaddr.isValid(address)) return false;
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    if (this.allowHosts.has(ip.toString())) return true;
    for (const [range, bits] of this.allowCidrs) {
      if (range.kind() === ip.kind() && ip.match(range, bits)) return true;
    }
    return isPublicAddress(ip);
  }

  /**
   * Validate a URL before use: http(s) only, no credentials, and a literal IP host must be public.
   * @throws AppError invalid_remote_url (400) or remote_url_forbidden (403)
   */
  checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new AppError('invalid_remote_url', `Not a valid absolute URL: ${raw.slice(0, 200)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AppError('invalid_remote_url', `Only http and https URLs can be fetched, not ${url.protocol}`);
    }
    if (url.username || url.password) throw new AppError('invalid_remote_url', 'URLs with embedded credentials are not accepted.');
    const host = normaliseHost(url.hostname);
    if (net.isIP(host) && !this.addressAllowed(host, host)) {
      throw new AppError('remote_url_forbidden', `The host ${host} is a private, loopback or link-local address and may not be fetched.`);
    }
    if (LOCAL_NAMES.test(host) && !this.allowHosts.has(host)) {
      throw new AppError('remote_url_forbidden', `The host ${url.hostname} may not be fetched.`);
    }
    return url;
  }

  /**
   * GET (or another method) with manual redirect handling: every hop is re-checked.
   * @throws AppError remote_url_forbidden when a hop resolves to a refused address; Error on network failure.
   */
  async fetch(rawUrl: string, opts: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; maxRedirects?: number; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<GuardedResponse> {
    let url = this.checkUrl(rawUrl);
    const maxRedirects = opts.maxRedirects ?? 5;
    for (let hop = 0; ; hop++) {
      let res: Dispatcher.ResponseData;
      try {
        res = await undiciRequest(url, {
          method: opts.method ?? 'GET', headers: opts.headers, body: opts.body, dispatcher: this.agent,
          headersTimeout: opts.timeoutMs ?? 30_000, bodyTimeout: opts.timeoutMs ?? 60_000, signal: opts.signal,
        });
      } catch (err) {
        const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
        if (code === 'EADDRNOTALLOWED' || String((err as Error).message).includes('is not public')) {
          throw new AppError('remote_url_forbidden', `${url.hostname} resolves to an address that may not be fetched.`);
        }
        throw err;
      }
      if ([301, 302, 303, 307, 308].includes(res.statusCode) && res.headers.location) {
        await res.body.dump();
        if (hop >= maxRedirects) throw new Error(`too many redirects (more than ${maxRedirects})`);
        url = this.checkUrl(new URL(String(res.headers.location), url).toString());
        continue;
      }
      return { url: url.toString(), statusCode: res.statusCode, headers: res.headers, body: res.body };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
