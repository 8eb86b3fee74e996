// The long run of the OpenAPI-driven fuzzer (the target: 0 × 5xx and 0 off-shape error bodies
// over 10,000 fuzzed requests). Same generator and checks as test/fuzz-openapi.test.ts
// (test/helpers/openapi-fuzz.ts), against a real server on loopback (workers off, so nothing accepted is
// fetched or processed; rate limits off unless --limits, so the requests reach the handlers). Reports
// the status histogram, 5xx count, shape violations (first 20 in full) and requests/s; JSON to
// bench/results/. Exit 1 when anything was found.
// Run: nice -n 10 npx tsx bench/fuzz.ts [--runs 10000] [--seed 1313] [--backend sqlite|postgres] [--limits]
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { startTestServer, repoRoot, type Backend } from '../test/helpers/server.ts';
import { fuzzSkip, fuzzTarget, fuzzViolation, operations, requestArb, sendFuzzRequest } from '../test/helpers/openapi-fuzz.ts';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const runs = Number(arg('--runs', '10000'));
const seed = Number(arg('--seed', '1313'));
const backend = arg('--backend', 'sqlite') as Backend;
const limitsOff: Record<string, string> = process.argv.includes('--limits') ? {} : {
  DOCSEARCH_RATE_LIMIT_IP_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_SEARCH_PER_MIN: '0', DOCSEARCH_RATE_LIMIT_INGEST_PER_MIN: '0', DOCSEARCH_MAX_INFLIGHT_INGESTS_PER_PROJECT: '0',
};

const server = await startTestServer({ backend, workers: false, env: limitsOff });
try {
  const { auth, ids } = await fuzzTarget(server);
  const doc = await (await fetch(`${server.baseUrl}/v3/openapi.json`)).json() as Record<string, any>;
  const ops = operations(doc, fuzzSkip);
  const requests = fc.sample(requestArb(ops, doc, auth, ids), { seed, numRuns: runs });
  const statuses = new Map<number, number>();
  const found = { '5xx': 0, shape: 0 };
  const examples: string[] = [];
  const t0 = Date.now();
  for (const [i, r] of requests.entries()) {
    const res = await sendFuzzRequest(server.baseUrl, r).catch((err: Error) => ({ status: 599, text: `client error: ${err.message}`, type: '' }));
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const bad = fuzzViolation(res);
    if (bad) {
      found[bad]++;
      if (examples.length < 20) examples.push(`${bad}: ${r.method} ${r.path.slice(0, 120)} -> ${res.status} ${res.text.slice(0, 200)}`);
    }
    if ((i + 1) % 1000 === 0) console.error(`${i + 1} requests, ${found['5xx']} × 5xx, ${found.shape} off-shape`);
  }
  const seconds = (Date.now() - t0) / 1000;
  const report = {
    backend, seed, requests: requests.length, operations: ops.length, five_xx: found['5xx'], shape_violations: found.shape,
    requests_per_s: Math.round(requests.length / seconds), statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])), examples,
  };
  console.log(JSON.stringify(report, null, 2));
  const out = path.join(repoRoot, 'bench', 'results', `fuzz-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  process.exitCode = found['5xx'] + found.shape > 0 ? 1 : 0;
} finally {
  await server.close();
}
