// A real S3-protocol server for bucket-ingest tests: the npm `s3rver` runs in a child process (it needs
// NODE_OPTIONS=--openssl-legacy-provider on Node 20 for its continuation tokens), and in front of it this
// process runs a small proxy that verifies every request's AWS Signature V4 with @smithy/signature-v4
// (s3rver itself does not check V4 signatures: it accepts any secret). A wrong secret is answered 403
// SignatureDoesNotMatch exactly like S3, an unknown key 403 InvalidAccessKeyId. Tests talk to the proxy.
// The proxy also implements S3's conditional create (`PUT` with `If-None-Match: *` answers 412 when the
// key exists), which s3rver ignores: LanceDB commits a table version that way, so without it two writers
// would silently overwrite each other's manifest (measured: 3 of 8 rows left after 6 concurrent appends).
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { S3Client, PutObjectCommand, CreateBucketCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { repoRoot } from './server.ts';
import { NodeSha256 as Sha256 } from '../../src/storage/s3-upstream.ts';

export interface S3TestServer {
  /** Proxy origin (SigV4-checked), e.g. http://127.0.0.1:40123 — give this to the service. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Requests that reached the proxy, by S3 operation-ish label ("GET /bucket?list-type=2"). */
  requests: string[];
  createBucket(name: string): Promise<void>;
  /** Upload objects (key -> bytes) with up to 32 requests at a time. */
  putObjects(bucket: string, objects: Array<[string, Buffer | string]>): Promise<void>;
  /** Delete objects by key. */
  deleteObjects(bucket: string, keys: string[]): Promise<void>;
  close(): Promise<void>;
}

const CHILD_SCRIPT = `
const S3rver = require(require.resolve('s3rver', { paths: [process.cwd()] }));
const AWSAccount = require(require.resolve('s3rver/lib/models/account', { paths: [process.cwd()] }));
AWSAccount.DUMMY_ACCOUNT.createKeyPair(process.env.S3_AKID, 'unused-s3rver-does-not-check-v4');
// S3 never shows a partly written object; s3rver writes in place, and resolves a buffer's PUT before the
// bytes are on disk, so a reader could see a short or empty object (Lance: "Range started at 0 and ended
// at 0" on a manifest being committed). Objects are written to a temporary name beside their place, their
// metadata first, then renamed into place (listing skips the temporary name: it lacks the object suffix).
const FilesystemStore = require(require.resolve('s3rver/lib/stores/filesystem', { paths: [process.cwd()] }));
const nodeFs = require('fs');
const nodePath = require('path');
const nodeCrypto = require('crypto');
const { pipeline } = require('stream/promises');
const { Transform } = require('stream');
FilesystemStore.prototype.putObject = async function (object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await nodeFs.promises.mkdir(nodePath.dirname(objectPath), { recursive: true });
  const tmp = objectPath + '.tmp-' + process.pid + '-' + nodeCrypto.randomBytes(6).toString('hex');
  const md5 = nodeCrypto.createHash('md5');
  let size = 0;
  try {
    if (Buffer.isBuffer(object.content)) {
      await nodeFs.promises.writeFile(tmp, object.content);
      md5.update(object.content);
      size = object.content.length;
    } else {
      const count = new Transform({ transform(chunk, enc, cb) { md5.update(chunk); size += chunk.length; cb(null, chunk); } });
      await pipeline(object.content, count, nodeFs.createWriteStream(tmp));
    }
    const digest = md5.digest('hex');
    await this.putMetadata(object.bucket, object.key, object.metadata, digest);
    await nodeFs.promises.rename(tmp, objectPath);
    return { size, md5: digest };
  } catch (err) {
    await nodeFs.promises.rm(tmp, { force: true });
    throw err;
  }
};
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3_DIR })
  .run().then((addr) => { process.stdout.write(JSON.stringify({ port: addr.port }) + '\\n'); });
`;

function s3Error(res: http.ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** Verify the SigV4 Authorization header of a buffered request. @returns an error code or null when valid. */
async function verifySigV4(req: http.IncomingMessage, keys: Map<string, string>): Promise<[string, string] | null> {
  const auth = req.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]+)$/.exec(auth);
  if (!m) return ['AccessDenied', 'Missing or malformed AWS Signature V4 Authorization header.'];
  const [, akid, , region, service, signedHeaders, signature] = m;
  const secret = keys.get(akid);
  if (!secret) return ['InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'];
  const url = new URL(req.url ?? '/', 'http://x');
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const names = signedHeaders.split(';');
  const headers: Record<string, string> = {};
  for (const n of names) {
    const v = req.headers[n];
    headers[n] = Array.isArray(v) ? v.join(',') : String(v ?? '');
  }
  const amzDate = headers['x-amz-date'] ?? String(req.headers['x-amz-date'] ?? '');
  const d = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(amzDate);
  if (!d) return ['AccessDenied', 'Missing x-amz-date.'];
  const signingDate = new Date(Date.UTC(+d[1], +d[2] - 1, +d[3], +d[4], +d[5], +d[6]));
  const signer = new SignatureV4({ credentials: { accessKeyId: akid, secretAccessKey: secret }, region, service, sha256: Sha256, uriEscapePath: false });
  const signed = await signer.sign({
    method: req.method ?? 'GET', protocol: 'http:', hostname: String(req.headers.host ?? '').split(':')[0],
    path: url.pathname, query, headers,
  }, { signingDate, signableHeaders: new Set(names) });
  const got = /Signature=([0-9a-f]+)/.exec(String(signed.headers.authorization ?? signed.headers.Authorization))?.[1];
  if (got !== signature) return ['SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.'];
  return null;
}

/**
 * Start s3rver (child process) behind a SigV4-verifying proxy on 127.0.0.1.
 * @returns endpoint and the one valid key pair; close() stops both and removes the data dir
 */
export async function startS3Server(): Promise<S3TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsearch-s3-'));
  const accessKeyId = 'AKIA' + crypto.randomBytes(8).toString('hex').toUpperCase();
  const secretAccessKey = crypto.randomBytes(30).toString('base64url');
  const region = 'us-east-1';
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD_SCRIPT], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '--openssl-legacy-provider', S3_DIR: dir, S3_AKID: accessKeyId },
  });
  const backendPort = await new Promise<number>((resolve, reject) => {
    let buf = '';
    const onData = (c: Buffer) => {
      buf += c.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) { child.stdout!.off('data', onData); resolve(JSON.parse(buf.slice(0, nl)).port); }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
    setTimeout(() => reject(new Error('s3rver did not start in 20 s')), 20_000).unref();
  });
  child.stdout!.resume();
  // A test process that crashes must not leave s3rver running (it would also hold the runner's stdout).
  const killChild = () => { child.kill('SIGTERM'); };
  process.once('exit', killChild);
  const keys = new Map([[accessKeyId, secretAccessKey]]);
  const requests: string[] = [];
  // Conditional creates of one key run one at a time (check, then write), like S3's atomic If-None-Match.
  const createLocks = new Map<string, Promise<void>>();
  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> => new Promise((done) => {
    const up = http.request({ host: '127.0.0.1', port: backendPort, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
      upRes.on('end', done);
    });
    up.on('error', (err) => { s3Error(res, 502, 'InternalError', err.message); done(); });
    up.end(body);
  });
  const headStatus = (urlPath: string): Promise<number> => new Promise((resolve, reject) => {
    http.request({ host: '127.0.0.1', port: backendPort, method: 'HEAD', path: urlPath }, (r) => { r.resume(); resolve(r.statusCode ?? 0); })
      .on('error', reject).end();
  });
  const conditionalCreate = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> => {
    const key = new URL(req.url ?? '/', 'http://x').pathname;
    const prev = createLocks.get(key) ?? Promise.resolve();
    const mine = prev.then(async () => {
      if (await headStatus(key) === 200) return s3Error(res, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
      await forward(req, res, body);
    });
    const tail = mine.catch(() => undefined);
    createLocks.set(key, tail);
    await mine.finally(() => { if (createLocks.get(key) === tail) createLocks.delete(key); });
  };
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        requests.push(`${req.method} ${req.url}`);
        const bad = await verifySigV4(req, keys);
        if (bad) return s3Error(res, 403, bad[0], bad[1]);
        if (req.method === 'PUT' && req.headers['if-none-match'] === '*') return conditionalCreate(req, res, Buffer.concat(chunks));
        await forward(req, res, Buffer.concat(chunks));
      })().catch((err) => s3Error(res, 500, 'InternalError', String(err)));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const client = new S3Client({ region, endpoint, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  let closed = false;
  return {
    endpoint, accessKeyId, secretAccessKey, region, requests,
    async createBucket(name) {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    async putObjects(bucket, objects) {
      let i = 0;
      const worker = async () => {
        while (i < objects.length) {
          const [key, body] = objects[i++];
          const data = Buffer.isBuffer(body) ? body : Buffer.from(body);
          await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentLength: data.length }));
        }
      };
      await Promise.all(Array.from({ length: 32 }, worker));
    },
    async deleteObjects(bucket, keys) {
      for (const key of keys) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async close() {
      if (closed) return;
      closed = true;
      client.destroy();
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
      process.off('exit', killChild);
      child.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
