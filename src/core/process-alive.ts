import { readFileSync, readlinkSync } from 'node:fs';

/** Whether a process with this id runs: one that exists but belongs to another user counts. */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let space: string | null | undefined;

/**
 * The PID namespace this process runs in, named so that no other can match it: the inode of
 * /proc/self/ns/pid (a container has its own) and the boot's id (another machine, or this one
 * after a reboot, has another). Undefined where /proc cannot say: then no pid is comparable.
 */
export function pidSpace(): string | undefined {
  if (space === undefined) {
    try {
      const inode = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replace(
        /[^0-9a-f]/g,
        '',
      );
      space = inode && boot ? `${inode}-${boot}` : null;
    } catch {
      space = null;
    }
  }
  return space ?? undefined;
}

/**
 * This process as others name it in what they share (a rate gate's claims): its id and its
 * PID namespace, `<pid>.<namespace>`.
 */
export function processName(): string {
  return `${process.pid}.${pidSpace() ?? 'unknown'}`;
}

/**
 * What this process can see of the process named `name` (processName's form): alive or gone
 * when it runs in this PID namespace; `unseen` otherwise (another namespace, another machine),
 * where only a lease it renews can tell.
 */
export function seeProcess(name: string): 'alive' | 'gone' | 'unseen' {
  const [pid, space] = name.split('.');
  if (space !== pidSpace()) return 'unseen';
  return processAlive(Number(pid)) ? 'alive' : 'gone';
}
