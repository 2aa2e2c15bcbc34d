/**
 * Whether this machine can make the sandbox of section 17, and if not, the one sentence that says why. Where
 * it cannot, real programs are refused; they never run bare.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { findHierarchy, type Hierarchy } from './cgroups.ts';
import { compileSeccompFilter } from './seccomp.ts';
import { feedPipes, pipesFor, sandboxLaunch, SESSION_UID_BASE } from './bwrap.ts';

/** What every sandbox of this process is made with. */
export interface SandboxKit {
  hierarchy: Hierarchy;
  seccomp: Buffer;
}

/** The programs a sandbox is made with, found on the PATH. */
const TOOLS = { bwrap: 'bubblewrap (bwrap)', setpriv: "util-linux's setpriv" } as const;

/**
 * Checks everything a sandbox needs, in the order a person would fix it, and tries one (`true` in a sandbox
 * of its own). Resolves with the kit, or with a sentence that ends "...: <what to do>".
 */
export async function findSandboxKit(): Promise<SandboxKit | string> {
  if (process.geteuid?.() !== 0)
    return 'real programs run each as a user of its own, which only a service running as root can switch to';
  for (const [tool, name] of Object.entries(TOOLS)) {
    if (!onPath(tool)) return `${name} is not installed: run npm run setup`;
  }
  const namespaces = Number(readText('/proc/sys/user/max_user_namespaces') ?? '1');
  if (namespaces === 0)
    return "this machine's kernel turns user namespaces off (user.max_user_namespaces is 0)";
  const hierarchy = findHierarchy();
  if (typeof hierarchy === 'string') return `${hierarchy}, so sessions cannot be limited`;
  let seccomp: Buffer;
  try {
    seccomp = await compileSeccompFilter();
  } catch (error) {
    return `the seccomp filter cannot be made: ${(error as Error).message}`;
  }
  const trial = await trySandbox(seccomp);
  return trial ?? { hierarchy, seccomp };
}

/** Runs `true` in a sandbox (without a control group); a sentence when bwrap refuses. */
async function trySandbox(seccomp: Buffer): Promise<string | null> {
  const ran = await runSandboxed(['true'], seccomp).catch((error: Error) => error);
  if (ran instanceof Error) return `bubblewrap could not be started (${ran.message})`;
  if (ran.code === 0) return null;
  const why = ran.stderr.trim().split('\n').pop() ?? `exit ${ran.code}`;
  return `bubblewrap cannot make a sandbox here (${why.replace(/^bwrap: /, '')})`;
}

/**
 * Runs `command` in a sandbox of the first session user, without a control group, under `seccomp`; what it
 * printed and how it ended. Rejects when bwrap cannot be started at all.
 */
export function runSandboxed(
  command: string[],
  seccomp: Buffer,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const launch = sandboxLaunch({
    command,
    env: {},
    uid: SESSION_UID_BASE,
    seccomp,
    cgroup: [],
    network: false,
    gpu: false,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(launch.file, launch.args, {
      stdio: ['ignore', 'pipe', 'pipe', ...pipesFor(launch.extra)],
    });
    feedPipes(child, launch.extra);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function onPath(tool: string): boolean {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    try {
      accessSync(path.join(dir, tool), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
