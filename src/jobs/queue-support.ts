// Helpers of the job queue that do not touch SQL: worker identities that let a restarted process tell
// provably dead lease holders from live ones, and recognising unique-index violations on both backends.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/** PID namespace of this process ('pid:[4026531836]'), or '' where /proc is not available. */
function pidNamespace(): string {
  try {
    return fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

const HOST = os.hostname();
const PIDNS = pidNamespace();
const SEP = '|';

/**
 * A lease owner id: `w|<hostname>|<pid namespace>|<pid>|<random>`. The random part makes every worker
 * instance unique; the rest lets expireDeadOwners() recognise holders that are certainly dead.
 */
export function leaseOwnerId(): string {
  return ['w', HOST, PIDNS, String(process.pid), crypto.randomUUID()].join(SEP);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The owners among `owners` that are certainly dead: recorded by a process on this host, in this PID
 * namespace (a PID means the same process only there), not this process, and whose PID is gone. A
 * reused PID only delays the release until the lease expires; it can never release a live worker.
 */
export function releasableOwners(owners: string[]): string[] {
  if (!PIDNS) return [];
  return owners.filter((o) => {
    const [tag, host, ns, pidRaw] = o.split(SEP);
    const pid = Number(pidRaw);
    return tag === 'w' && host === HOST && ns === PIDNS && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
  });
}

/** True for a unique-constraint violation from better-sqlite3 or pg. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
    || /UNIQUE constraint failed/.test(String(e?.message));
}
