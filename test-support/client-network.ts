/**
 * A browser on another network, for the door's tests and benchmarks (CONTRACT §21): a network namespace of its
 * own joined to this machine by one veth pair, with no default route. From inside, the host end's address is all
 * there is: a service listening there (its HTTP port, its TURN port) is reached; sessions bound to 127.0.0.1 and
 * the Slurm test cluster's nodes are out of reach, as compute nodes are from a real browser. nftables rules inside
 * the namespace drop what a strict network drops (all UDP; one TCP port). Everything is removed on stop, and by an
 * exit hook should the test process end with the network still there. It needs root, as the Slurm test cluster
 * does: a machine that cannot make it fails the start with the tool's own words.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClientNetworkOptions {
  /** The namespace's name, also the stem of the veth pair's (at most 10 characters). */
  name: string;
  /** The /24 both ends live in, as its first three octets: `10.91.0` gives 10.91.0.1 (host) and 10.91.0.2. */
  subnet: string;
}

export interface ClientNetwork {
  name: string;
  /** The host end's address: where the service must listen to be reached from inside. */
  hostAddress: string;
  /** The namespace end's address. */
  clientAddress: string;
  /** A Chromium that runs inside the namespace: an executable to give Playwright as `executablePath`. */
  chromium: string;
  /** Drops every UDP packet the namespace sends: no direct media, no TURN over UDP. */
  dropUdp(): Promise<void>;
  /** Drops the namespace's TCP to `port` (the TURN port, say), on top of whatever else is dropped. */
  dropTcpPort(port: number): Promise<void>;
  /** Lets everything through again. */
  allowAll(): Promise<void>;
  /** Runs a command inside the namespace; resolves with its output. */
  exec(command: string, args: string[]): Promise<string>;
  /** Removes the namespace, its veth pair and the wrapper; safe to call twice. */
  stop(): Promise<void>;
}

const TABLE = 'streamgate_client';
const live = new Map<string, () => void>();
let hooked = false;

function failure(what: string, error: unknown): Error {
  const e = error as { stderr?: string; message?: string };
  return new Error(`${what} failed: ${(e.stderr ?? '').trim() || e.message || String(error)}`);
}

async function sh(what: string, command: string, args: string[], input?: string): Promise<string> {
  try {
    const child = run(command, args, { timeout: 15_000 });
    if (input !== undefined) {
      child.child.stdin?.end(input);
    }
    return (await child).stdout;
  } catch (error) {
    throw failure(what, error);
  }
}

/** Makes the namespace and the veth pair; rejects (leaving nothing) when the machine cannot. */
export async function startClientNetwork(options: ClientNetworkOptions): Promise<ClientNetwork> {
  const { name, subnet } = options;
  if (!/^[a-z][a-z0-9-]{0,9}$/.test(name)) throw new Error(`Client network name "${name}" is not usable.`);
  const hostVeth = `${name}-h`;
  const hostAddress = `${subnet}.1`;
  const clientAddress = `${subnet}.2`;
  const removeLinks = () => {
    for (const args of [
      ['netns', 'del', name],
      ['link', 'del', hostVeth],
    ]) {
      try {
        execFileSync('ip', args, { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    }
  };
  // Left by a test process that was killed: a fresh start needs the names free.
  removeLinks();
  const dir = mkdtempSync(path.join(tmpdir(), `streamgate-${name}-`));
  const chromium = path.join(dir, 'chromium');
  const removeNow = () => {
    removeLinks();
    rmSync(dir, { recursive: true, force: true });
    live.delete(name);
  };
  live.set(name, removeNow);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const remove of [...live.values()]) remove();
    });
  }
  try {
    await sh('ip netns add', 'ip', ['netns', 'add', name]);
    await sh('ip link add (veth)', 'ip', [
      'link',
      'add',
      hostVeth,
      'type',
      'veth',
      'peer',
      'name',
      'eth0',
      'netns',
      name,
    ]);
    await sh('ip addr add (host end)', 'ip', ['addr', 'add', `${hostAddress}/24`, 'dev', hostVeth]);
    await sh('ip link set up (host end)', 'ip', ['link', 'set', hostVeth, 'up']);
    await sh('ip addr add (client end)', 'ip', [
      '-n',
      name,
      'addr',
      'add',
      `${clientAddress}/24`,
      'dev',
      'eth0',
    ]);
    await sh('ip link set up (client end)', 'ip', ['-n', name, 'link', 'set', 'eth0', 'up']);
    await sh('ip link set lo up', 'ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  } catch (error) {
    removeNow();
    throw error;
  }
  // nsenter rather than `ip netns exec`, which would remount /sys for the browser (CLUSTER-NOTES.md).
  writeFileSync(
    chromium,
    `#!/bin/sh\nexec nsenter --net=/run/netns/${name} "\${CHROMIUM_PATH:-/usr/bin/chromium}" "$@"\n`,
  );
  chmodSync(chromium, 0o755);
  const nft = (what: string, script: string) =>
    sh(what, 'ip', ['netns', 'exec', name, 'nft', '-f', '-'], script);
  const rules: string[] = [];
  const apply = async () => {
    await sh('nft flush', 'ip', ['netns', 'exec', name, 'nft', 'flush', 'ruleset']);
    if (rules.length === 0) return;
    await nft(
      'nft add table',
      `table inet ${TABLE} {\n  chain out {\n    type filter hook output priority 0; policy accept;\n${rules
        .map((rule) => `    ${rule}\n`)
        .join('')}  }\n}\n`,
    );
  };
  let stopped = false;
  return {
    name,
    hostAddress,
    clientAddress,
    chromium,
    async dropUdp() {
      rules.push('meta l4proto udp drop');
      await apply();
    },
    async dropTcpPort(port) {
      rules.push(`tcp dport ${port} drop`);
      await apply();
    },
    async allowAll() {
      rules.length = 0;
      await apply();
    },
    exec: (command, args) => sh(command, 'nsenter', [`--net=/run/netns/${name}`, command, ...args]),
    async stop() {
      if (stopped) return;
      stopped = true;
      removeNow();
    },
  };
}
