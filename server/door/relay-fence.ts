/**
 * A fence around the embedded relay (CONTRACT §21): coturn's peer permissions are by address, not port, so a TURN
 * credential that may reach the media door's address reaches every UDP port there, and a socket bound to the
 * wildcard address (mDNS, rpcbind, SNMP... on a real host) listens on that address too. One nftables rule drops
 * what the relay sends from its own ports to that address on any port but the media door's. It is keyed by the
 * relay's port range, so that services with ranges of their own (tests, several sites on one machine) fence only
 * their own relay.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface RelayFenceOptions {
  /** The media door, the one place the relay may send to on its address. */
  door: { host: string; port: number };
  /** The relay's own ports, which its datagrams to peers leave from. */
  relayPorts: { first: number; last: number };
  /** The nft executable; `nft` on PATH by default. */
  nft?: string;
}

export interface RelayFence {
  /** Removes the rule; safe to call twice. */
  close(): Promise<void>;
}

/** The table's name: one per relay range. */
export function fenceTable(relayPorts: { first: number }): string {
  return `streamgate_relay_${relayPorts.first}`;
}

/** The nftables script of the fence. */
export function fenceScript(options: RelayFenceOptions): string {
  const { door, relayPorts } = options;
  return [
    `table ip ${fenceTable(relayPorts)} {`,
    '  chain out {',
    '    type filter hook output priority 0; policy accept;',
    `    ip daddr ${door.host} udp sport ${relayPorts.first}-${relayPorts.last} udp dport != ${door.port} drop`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/**
 * Puts the fence up (replacing one a killed service left); rejects with one sentence when it cannot (nftables
 * missing, no right to change the firewall).
 */
export async function fenceRelay(options: RelayFenceOptions): Promise<RelayFence> {
  const nft = options.nft ?? 'nft';
  const table = fenceTable(options.relayPorts);
  const remove = () =>
    run(nft, ['delete', 'table', 'ip', table]).then(
      () => undefined,
      () => undefined,
    );
  await remove();
  try {
    const child = run(nft, ['-f', '-']);
    child.child.stdin?.end(fenceScript(options));
    await child;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    const why =
      e.code === 'ENOENT' ? 'nftables is not installed' : (e.stderr ?? e.message).trim().split('\n')[0];
    throw new Error(
      `The relay could not be fenced to the media door's port (${why}): it can reach every UDP port of ` +
        `${options.door.host}; run npm run setup, as root.`,
    );
  }
  const onExit = () => {
    try {
      execFileSync(nft, ['delete', 'table', 'ip', table], { stdio: 'ignore' });
    } catch {
      // Gone already, or nothing more can be done while exiting.
    }
  };
  process.once('exit', onExit);
  let closed: Promise<void> | undefined;
  return {
    close: () =>
      (closed ??= (async () => {
        process.removeListener('exit', onExit);
        await remove();
      })()),
  };
}
