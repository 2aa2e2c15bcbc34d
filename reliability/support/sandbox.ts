/**
 * The service of the sandbox tests (sandbox.test.ts, sandbox-failures.test.ts): its catalog, a hostile program and a
 * memory hog under a profile of small limits, and what they read of the host's processes in /proc.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { alive, root, startService, type Service } from './service.ts';

/** A word the hostile program names its files by. */
export const MARK = `escape${process.pid}`;

/** The catalog: the hostile program, and a memory hog, under a profile of small limits. */
function catalog(dataDir: string, servicePort: number): string {
  const env = {
    KEY: path.join(dataDir, 'viewer-ticket.key'),
    STATE: path.join(dataDir, 'sessions.json'),
    REPO: root,
    DATA: dataDir,
    SERVICE_PORT: String(servicePort),
    MARK,
  };
  const hog = 'xterm & sleep 3; exec /usr/bin/python3 -c "b = []\nwhile True: b.append(b\'x\' * (16 << 20))"';
  return `applications:
  - id: hostile
    name: Hostile
    description: Tries every escape.
    versions:
      - version: 1.0.0
        description: The escapes.
        launch:
          display:
            command: [sh, -c, 'sh ./hostile-program.sh & exec xterm']
            files: [hostile-program.sh, target-pid]
            env: ${JSON.stringify(env)}
      - version: 0.9.0
        description: A memory hog.
        launch: {display: {command: [sh, -c, ${JSON.stringify(hog)}]}}
profiles:
  - id: tight
    name: Tight
    description: Small limits.
    applications: [{id: hostile, versions: ["*"]}]
    settings: {width: 320, height: 180, fps: 15, max_width: 640, max_height: 360, startup_timeout_s: 60,
               limits: {memory_mb: 256, pids: 64}}
`;
}

/**
 * Starts the service on `port` with that catalog, the hostile program beside it, and a data directory an older
 * version left open to all (the start closes it).
 */
export async function startHostileService(
  port: number,
  sessionPorts: { first: number; last: number },
): Promise<Service> {
  const workDir = await mkdtemp(path.join(tmpdir(), 'streamgate-rel-'));
  copyFileSync(
    path.join(import.meta.dirname, 'hostile-program.sh'),
    path.join(workDir, 'hostile-program.sh'),
  );
  // The pid to attack, known once the service runs: the program reads it from this file of its catalog's.
  writeFileSync(path.join(workDir, 'target-pid'), '');
  mkdirSync(path.join(workDir, 'state'), { mode: 0o755 });
  const service = await startService({
    port,
    sessionPorts,
    workDir,
    catalog: catalog(path.join(workDir, 'state'), port),
  });
  writeFileSync(path.join(workDir, 'target-pid'), String(service.child.pid));
  return service;
}

/** The real uid of a process. */
export function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

/** Live processes whose command line is exactly `command` (or whose program is, with `program`). */
export function processesRunning(command: string, program = false): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
        return program ? argv[0] === command : argv.join(' ').trim() === command;
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(alive);
}
