/**
 * The service harness itself: what every suite relies on when it starts, kills and restarts the real service,
 * and that it leaves nothing behind when a start fails.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, processesWith } from './processes.ts';
import { ProcessStartError, repoRoot, startService, stopStartedServices, type Service } from './service.ts';
import { answers, until } from './until.ts';

const catalog = (name: string) => `applications:
  - id: harness-app
    name: ${name}
    description: Only listed.
    versions: [{version: 1.0.0, description: One.}]
profiles:
  - {id: default, name: Default, description: Any., applications: [{id: "*", versions: ["*"]}]}
`;

/** The name the running service gives the catalog's application. */
async function listedName(service: Service): Promise<string> {
  const res = await fetch(`${service.api}/cfg/apps/harness-app`);
  return ((await res.json()) as { name: string }).name;
}

afterAll(stopStartedServices);

describe('the service harness', () => {
  it('kills the service, starts it again where it was with a new catalog, and removes its files', async () => {
    const service = await startService({ catalog: catalog('First'), portal: false });
    try {
      expect(await listedName(service)).toBe('First');
      const firstPid = service.child.pid;

      await service.kill9();
      expect(service.running()).toBe(false);
      expect(await answers(`${service.url}/healthz`)).toBe(false);

      await service.writeCatalog(catalog('Second'));
      await service.restart();
      expect(service.child.pid).not.toBe(firstPid);
      expect(await listedName(service)).toBe('Second');
      // One output across both runs: what the first run said is still there to explain a failure.
      expect(service.output()).toContain('Streamgate is running at');
      await expect(service.restart()).rejects.toThrow(/running/);
    } finally {
      await service.close();
    }
    expect(service.running()).toBe(false);
    expect(existsSync(service.workDir)).toBe(false);
  });

  it('kills a service that is not ready in time, and says so', async () => {
    // The shell becomes a sleep of a number no other process on the machine has in its command line.
    const marker = `sleep ${3000 + (process.pid % 1000)}`;
    const failed = await startService({ shellPrefix: `exec ${marker}`, readyWithinMs: 1_000 }).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ProcessStartError);
    expect((failed as ProcessStartError).message).toMatch(/not ready within 1 s/);
    expect(processesWith(marker)).toEqual([]);
  });

  it('leaves no service running when the test process that started it is killed with SIGKILL', async () => {
    const script = `const { startService } = await import('./test-support/service.ts');
      const service = await startService({ portal: false });
      console.log('service', service.child.pid, service.workDir);
      setInterval(() => {}, 1000);`;
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let workDir: string | undefined;
    try {
      const [line] = (await once(holder.stdout, 'data')) as [Buffer];
      const [, pidText, dir] = /service (\d+) (\S+)/.exec(line.toString()) ?? [];
      const pid = Number(pidText);
      workDir = dir;
      expect(alive(pid)).toBe(true);
      holder.kill('SIGKILL');
      // Its IPC channel closed with the test process: the service stops by itself, as after scripts/start.ts.
      await until('the orphaned service to stop', () => !alive(pid));
    } finally {
      holder.kill('SIGKILL');
      if (workDir) await rm(workDir, { recursive: true, force: true });
    }
  });
});
