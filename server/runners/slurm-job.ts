/**
 * What a session's Slurm job runs on its node: `node dist-apps/slurm-job.mjs <dir> <session id>` (its bundle, built
 * by the service; `node --import tsx server/runners/slurm-job.ts ...` before the service built it).
 * It reads the session's launch from the shared directory, starts the application there as the local runner
 * does on one machine (sandboxed, CONTRACT §17), bound to its node's address, and writes back where it listens
 * (`<id>.placed.json`) and, when it ends, how (`<id>.exit.json`). Slurm's end of the job (scancel, its time
 * limit) stops the application with it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { adoptAppBundles } from './app-bundles.ts';
import { LocalRunner } from './local.ts';
import { ServiceSandbox } from './service-sandbox.ts';
import { exitFile, placedFile, specFile, writePrivate, type JobSpec } from './slurm-files.ts';
import { findSandboxKit } from '../../sandbox/availability.ts';
import { probeH264 } from '../../protocol/h264-encoder.ts';
import type { RunExit } from './runner.ts';

/**
 * This node's address as Slurm knows it (NodeAddr): the one the application binds and the routes name. The
 * service's list of them at submission spares a call of sinfo (about 50 ms); a node added since is asked for.
 * The Slurm tools are loaded only then: their JSON schemas (ajv) cost a job's every start about 80 ms.
 */
async function nodeAddress(known: Record<string, string>): Promise<{ node: string; addr: string }> {
  const node = process.env.SLURMD_NODENAME ?? '';
  if (known[node]) return { node, addr: known[node] };
  const { SlurmTools } = await import('./slurm-tools.ts');
  const found = (await new SlurmTools().nodes()).find((each) => each.name === node);
  if (!found) throw new Error(`Slurm does not know this node (${node || 'SLURMD_NODENAME is unset'})`);
  return { node, addr: found.addr };
}

/**
 * When each step of the job was reached (ms since the epoch), written with where it listens: what the bench
 * splits a launch's time by (bench/slurm.ts). `started` is the job process's own start.
 */
const marks: Record<string, number> = { started: Math.round(performance.timeOrigin) };
const mark = (name: string) => (marks[name] = Date.now());

async function main(): Promise<void> {
  mark('entered');
  const [dir, sessionId] = process.argv.slice(2);
  if (!dir || !sessionId) throw new Error('usage: slurm-job.ts <shared directory> <session id>');
  const spec = JSON.parse(readFileSync(specFile(dir, sessionId), 'utf8')) as JobSpec;
  if (spec.bundles) adoptAppBundles(spec.bundles);
  const { node, addr } = await nodeAddress(spec.nodeAddrs ?? {});
  const jobDir = path.join(dir, sessionId);
  const kit = spec.sandboxed ? await findSandboxKit() : null;
  const sandbox = kit ? await ServiceSandbox.prepare(jobDir, kit) : ServiceSandbox.unsandboxedForTests();
  mark('sandboxReady');
  // Nodes of a test cluster share one machine: each job starts its search for ports at a place of its own.
  const { first, last } = spec.portRange;
  const offset = (Number(process.env.SLURM_JOB_ID ?? 0) * 2) % Math.max(2, Math.floor((last - first) / 2));
  const logger = {
    info: (fields: object, message: string) => console.log(message, JSON.stringify(fields)),
    warn: (fields: object, message: string) => console.warn(message, JSON.stringify(fields)),
    error: (fields: object, message: string) => console.error(message, JSON.stringify(fields)),
  };
  const runner = new LocalRunner({
    publicHost: addr,
    portRange: { first: first + offset, last },
    capacity: 1,
    logDir: path.join(dir, 'logs'),
    appCwd: spec.appCwd,
    stopGraceMs: spec.stopGraceMs,
    sandbox,
    probeH264,
    logger,
  });
  let ended = false;
  const end = async (exit: RunExit) => {
    if (ended) return;
    ended = true;
    clearInterval(alive);
    writePrivate(exitFile(dir, sessionId), exit);
    await runner.stop(sessionId, undefined);
    await runner.close();
    process.exit(exit.code ?? 1);
  };
  // The application is no child that keeps Node running: the job lives until it ends (or Slurm ends the job).
  const alive = setInterval(() => {}, 60_000);
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => void end({ code: null, signal, lastWords: '' }));
  let listening = false;
  // Where the node cannot make a sandbox, a real program is refused there too, in the same words.
  const refusal = runner.refuses(spec.request);
  if (refusal) return end({ code: 1, signal: null, lastWords: refusal });
  mark('appStarting');
  await runner.start(
    {
      sessionId,
      request: spec.request,
      environment: spec.environment,
      secret: Buffer.from(spec.secret, 'base64'),
    },
    {
      // Written once the application says it listens (CONTRACT §18): one that never does is cancelled.
      placed: (placement, announced) => {
        mark('spawned');
        void announced.then(() => {
          listening = true;
          mark('listening');
          // The job's id too: a step started by srun is not known to the service by it until squeue lists it.
          const job = process.env.SLURM_JOB_ID;
          writePrivate(placedFile(dir, sessionId), { ...placement, node, job, marks });
        });
      },
      exited: (exit) => void end(exit),
      waiting: () => {},
      // Until it says it listens: a port lost before then is taken again on others, as on one machine.
      starting: () => !listening,
    },
  );
}

main().catch((error: Error) => {
  console.error(`The session's job could not start its application: ${error.message}`);
  process.exit(1);
});
