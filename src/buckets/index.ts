// Composition of the bucket-ingest domain: the API service, the driver and e-mail job kinds
// (app.ts runs them in their own Workers, so a long-running task never takes an ingest slot), and the
// watchdog that gives every running task a driver after a restart.
import type { Logger } from 'pino';
import type { Config } from '../internal/config.ts';
import type { NetGuard } from '../internal/net-guard.ts';
import type { ControlPlane } from '../storage/db.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { JobKind } from '../jobs/worker.ts';
import type { DocumentService } from '../documents/document-service.ts';
import { CredentialCipher } from './credentials-cipher.ts';
import { TaskStore } from './task-store.ts';
import { BucketService } from './bucket-service.ts';
import { bucketDriverJobKind } from './task-driver.ts';
import { bucketEmailJobKind } from './email-job.ts';
import { FILE_CAP_CEILING } from './limits.ts';

export interface BucketDomain {
  service: BucketService;
  driverKind: JobKind;
  emailKind: JobKind;
  /** Bucket tasks driven at once by this process. */
  concurrentTasks: number;
  /** Start the watchdog (every `intervalMs`) and run it once now. */
  startSupervisor(intervalMs?: number): void;
  close(): Promise<void>;
}

/** Build the domain from the app's long-lived dependencies. */
export function createBucketDomain(deps: { cp: ControlPlane; queue: JobQueue; blobs: BlobStore; net: NetGuard; config: Config; logger: Logger; documents: DocumentService }): BucketDomain {
  const { config } = deps;
  const b = config.buckets ?? { fileCap: FILE_CAP_CEILING, egressQuotaBytes: 0, fileCredits: 0, concurrentTasks: 4 };
  const logger = deps.logger.child({ domain: 'buckets' });
  const store = new TaskStore(deps.cp);
  const cipher = new CredentialCipher(config.serverSecret);
  const completion = { webhookMaxAttempts: config.webhookMaxAttempts ?? 12, emailMaxAttempts: config.webhookMaxAttempts ?? 12 };
  const service = new BucketService({
    store, queue: deps.queue, net: deps.net, cipher, logger, fileCap: b.fileCap, homeRegion: b.region,
    smtpConfigured: Boolean(config.smtp), completion,
  });
  const driverKind = bucketDriverJobKind({
    store, queue: deps.queue, blobs: deps.blobs, net: deps.net, cipher, logger, completion,
    quotas: { egressQuotaBytes: b.egressQuotaBytes, fileCredits: b.fileCredits }, tickMs: 250, documents: deps.documents,
  });
  const emailKind = bucketEmailJobKind({ cp: deps.cp, smtp: config.smtp, logger, retryBaseMs: config.webhookRetryBaseMs ?? 5000 });
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  const sweep = () => {
    sweeping ??= service.superviseAll().catch((err) => logger.error({ err }, 'bucket task watchdog failed')).finally(() => { sweeping = undefined; });
    return sweeping;
  };
  return {
    service, driverKind, emailKind, concurrentTasks: b.concurrentTasks,
    startSupervisor(intervalMs = 2000) {
      if (timer) return;
      void sweep();
      timer = setInterval(() => void sweep(), intervalMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping;
      emailKind.close();
    },
  };
}

export { BucketService } from './bucket-service.ts';
export type { TaskView } from './task-view.ts';
export type { DryRunReport } from './dry-run.ts';
