// X-Base-URL image resolution (spec: "Base URL given for resolving relative image links"). HTML and
// Markdown parsers report the images they reference by URL (`ParsedDocument.remoteImages`); after
// parsing, in the worker's main thread, each link is resolved against the base (X-Base-URL, else the
// final URL of an X-Remote-URL fetch) and fetched through the NetGuard (public http(s) only, every
// redirect re-checked). Bounded: at most 20 images, 5 MB each, 10 s each, 4 at a time; only PNG, JPEG,
// GIF and WebP bytes (checked by signature, not by the server's Content-Type) are kept. A failed fetch
// only loses that image: the document is still ingested with its `[IMAGE: name]` reference.
import { readBodyCapped, type NetGuard } from '../../internal/net-guard.ts';
import type { ImageAsset, ParsedDocument } from '../parse/types.ts';

export interface RemoteImageLimits {
  maxImages: number;
  maxBytes: number;
  timeoutMs: number;
}

export const DEFAULT_REMOTE_IMAGE_LIMITS: RemoteImageLimits = { maxImages: 20, maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000 };

/** Media type from the first bytes, or null when it is not a web image format we keep. */
export function sniffImageType(data: Buffer): string | null {
  if (data.length < 12) return null;
  const hex = data.subarray(0, 4).toString('hex');
  if (hex === '89504e47') return 'image/png';
  if (hex.startsWith('ffd8ff')) return 'image/jpeg';
  if (hex === '47494638') return 'image/gif';
  if (hex === '52494646' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

async function fetchImage(net: NetGuard, url: string, limits: RemoteImageLimits, signal?: AbortSignal): Promise<Buffer | null> {
  try {
    const res = await net.fetch(url, { timeoutMs: limits.timeoutMs, signal });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return null;
    }
    return await readBodyCapped(res.body, limits.maxBytes);
  } catch {
    return null;
  }
}

/**
 * Fetch the document's linked images and add them to `doc.images` (names as referenced in the text).
 * @param base absolute base URL; without one nothing is fetched
 * @returns number of images added
 */
export async function resolveRemoteImages(net: NetGuard, doc: ParsedDocument, base: string | undefined, opts: { limits?: RemoteImageLimits; signal?: AbortSignal } = {}): Promise<number> {
  const limits = opts.limits ?? DEFAULT_REMOTE_IMAGE_LIMITS;
  if (!base || !doc.remoteImages?.length) return 0;
  const have = new Set(doc.images.map((i) => i.name));
  const todo: Array<{ name: string; url: string; alt?: string; page: number }> = [];
  for (const ref of doc.remoteImages) {
    if (todo.length >= limits.maxImages) break;
    if (have.has(ref.name)) continue;
    let url: URL;
    try {
      url = new URL(ref.src, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    have.add(ref.name);
    todo.push({ name: ref.name, url: url.href, alt: ref.alt, page: ref.page });
  }
  const added: ImageAsset[] = [];
  let next = 0;
  const worker = async () => {
    while (next < todo.length && !opts.signal?.aborted) {
      const t = todo[next++];
      const data = await fetchImage(net, t.url, limits, opts.signal);
      const mediaType = data && sniffImageType(data);
      if (data && mediaType) added.push({ name: t.name, mediaType, data, alt: t.alt, page: t.page });
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, todo.length) }, worker));
  const order = new Map(todo.map((t, i) => [t.name, i]));
  added.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  doc.images.push(...added);
  return added.length;
}
