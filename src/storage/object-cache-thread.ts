// Worker-thread entry of the index read cache (object-cache.ts): the loopback S3 endpoint and its block
// cache run on their own event loop, so LanceDB's reads are answered while the service's thread is busy
// ranking (served on the main thread, each of a search's dozen reads waited behind the search's own work).
import { parentPort, workerData } from 'node:worker_threads';
import { ObjectCacheProxy, type ObjectCacheOptions } from './object-cache-proxy.ts';

const proxy = new ObjectCacheProxy(workerData as ObjectCacheOptions);
const origin = await proxy.start();
parentPort!.postMessage({ kind: 'ready', origin, token: proxy.token });
parentPort!.on('message', (msg: { kind: 'stats' | 'close' }) => {
  if (msg.kind === 'stats') parentPort!.postMessage({ kind: 'stats', stats: { ...proxy.cache.stats } });
  else void proxy.close().finally(() => parentPort!.postMessage({ kind: 'closed' }));
});
