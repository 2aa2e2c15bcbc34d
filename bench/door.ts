/**
 * The door (CONTRACT §21) against direct play, in one run, on the real stack (service with its embedded coturn,
 * sample application, built portal, Chromium):
 *   key to photon      a key in the portal's viewer until a presented frame shows it (the sample application's
 *                      "Last key" line, measured as bench/viewer.ts does): median and p95
 *   launch to frame    the Launch click until the first decoded frame (as bench/launch.ts): median
 * each for a browser on this machine (direct), and for a browser on a network of its own that reaches nothing but
 * the service's HTTP and TURN ports (test-support/client-network.ts): relay over UDP, then relay over TCP once
 * its UDP is dropped. The path each viewer took is read from its own statistics, not assumed; the video's losses
 * and freezes while the keys were typed (its inbound-rtp) are printed beside, since they make the p95.
 *   relay CPU          coturn's and the service's CPU while N viewers watch a scrolling terminal (xterm on the
 *                      display host) through the relay, divided by N; beside it the service's with N direct
 *                      viewers. The viewers are Node viewers bound to ::1 alone, which reach the session only
 *                      through the relay (reliability/door.test.ts says why).
 * Usage: npm run bench -- door (it builds the portal), or npx tsx bench/door.ts [--runs 4] [--keys 30]
 * [--viewers 8] [--list] after npm run build; `--list` prints every key's time. Needs root (a network namespace)
 * and coturn.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { cleanup as stopWebRtc } from 'node-datachannel';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startE2eService } from '../e2e/support/stack';
import { startClientNetwork, type ClientNetwork } from '../test-support/client-network';
import type { Service } from '../test-support/service';
import { openViewer, type Viewer } from '../test-support/whep-viewer';
import { cpuSeconds, median, quantile } from './stats';
import { KEY_PROBE, typeTimedKeys, type KeyToPhoton } from './key-probe';
import { launchOnce } from './launch-split';
import { json, readySession } from './ready-session';

const args = process.argv.slice(2);
function option(name: string, fallback: number): number {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(value) && value >= 1 ? value : fallback;
}
const RUNS = option('--runs', 4);
const KEYS = option('--keys', 30);
/** Relayed viewers of one session (they share its relay quota, SESSION_ALLOCATIONS in server/door/start-door.ts). */
const VIEWERS = option('--viewers', 8);
const CPU_SECONDS = 10;

/** A network name and subnet no test uses (the e2e door spec has 10.92.0, the Slurm test cluster 10.77.0). */
const NETWORK = { name: 'sgdbench', subnet: '10.94.0' };
/** Below the ephemeral ports; clear of the tests' relays (49700-49899) and session ports (47000-48999). */
const TURN_PORT = 3488;
const MEDIA_DOOR = '127.0.0.2:3489';
const RELAY_PORTS = '49900-49999';

const SCROLL = 'while true; do date; ls -la /usr/bin | head -40; sleep 0.05; done';
const catalog = `
applications:
  - id: sample
    name: Sample Viewer
    description: The sample streaming application.
    versions: [{ version: 1.0.0, description: Test build. }]
  - id: terminal
    name: Terminal
    description: xterm on the display host, scrolling.
    versions:
      - version: 1.0.0
        description: Debian's xterm.
        launch:
          display:
            command: [xterm, -fa, Monospace, -fs, '14', -bg, black, -fg, white, -e, bash, -c, ${JSON.stringify(SCROLL)}]
profiles:
  - id: follow
    name: Follow
    description: 640x360 at 30 fps at first, then the viewer's size up to 1280x720.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 1280, max_height: 720, max_viewers: ${VIEWERS + 2} }
`;

/**
 * Installed in each page: the peer connections the player makes, the path of the one in use (as the player's
 * statistics name it, src/player/stats/stats-sample.ts), and key to photon as bench/viewer.ts measures it (bench/key-probe.ts).
 */
const pageScript = `
(() => {
  window.__name = (f) => f;
  const pcs = [];
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = function (...a) { const pc = new Native(...a); pcs.push(pc); return pc; };
  window.RTCPeerConnection.prototype = Native.prototype;
  window.mediaPath = async () => {
    const pc = pcs[pcs.length - 1];
    if (!pc) return 'none';
    const stats = await pc.getStats();
    let pair;
    stats.forEach((s) => { if (s.type === 'transport' && s.selectedCandidatePairId) pair = stats.get(s.selectedCandidatePairId); });
    const local = pair && stats.get(pair.localCandidateId);
    if (!local) return 'none';
    if (local.candidateType !== 'relay' && local.relayProtocol === undefined) return 'direct';
    return 'relay ' + String(local.relayProtocol ?? 'udp').toUpperCase();
  };
  window.videoStats = async () => {
    const pc = pcs[pcs.length - 1];
    const out = { lost: 0, nacks: 0, plis: 0, freezes: 0, freezeMs: 0 };
    if (!pc) return out;
    (await pc.getStats()).forEach((s) => {
      if (s.type !== 'inbound-rtp' || s.kind !== 'video') return;
      out.lost += s.packetsLost ?? 0; out.nacks += s.nackCount ?? 0; out.plis += s.pliCount ?? 0;
      out.freezes += s.freezeCount ?? 0; out.freezeMs += (s.totalFreezesDuration ?? 0) * 1000;
    });
    return out;
  };
})();
`;

interface VideoStats {
  lost: number;
  nacks: number;
  plis: number;
  freezes: number;
  freezeMs: number;
}

interface PageApi {
  mediaPath(): Promise<string>;
  videoStats(): Promise<VideoStats>;
  nextKeyToPhoton(whole: boolean): Promise<KeyToPhoton>;
}

interface PathResult {
  name: string;
  /** What the viewers' statistics said, each distinct once. */
  seen: Set<string>;
  keys: number[];
  /** The keys (1 for the first) that no frame showed within 3 s. */
  missed: number[];
  /** The video's losses and freezes over the session the keys were typed into, from its inbound-rtp. */
  video?: VideoStats;
  /** Datagrams this machine dropped for want of room in a socket's receive buffer meanwhile (any process's). */
  udpOverflows: number;
  launches: number[];
}

/** Keys typed into the viewer of the session the page shows, each timed to the frame that shows it. */
async function typeKeys(page: Page, result: PathResult): Promise<void> {
  // The stream follows the element (a 1280x800 window, as bench/viewer.ts): wait until it has its size.
  await page.waitForFunction(() => (document.querySelector('video')?.videoWidth ?? 0) > 900, undefined, {
    timeout: 15_000,
  });
  const keys = await typeTimedKeys(page, KEYS);
  result.keys.push(...keys.ms);
  result.missed.push(...keys.missed);
  result.video = await page.evaluate(() => (window as unknown as PageApi).videoStats());
}

/** RUNS launches (after one not counted) on `browser`, the keys typed into the last one. */
async function measurePath(
  browser: Browser,
  baseURL: string,
  apiURL: string,
  name: string,
): Promise<PathResult> {
  const result: PathResult = { name, seen: new Set(), keys: [], missed: [], launches: [], udpOverflows: 0 };
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript({ content: pageScript + KEY_PROBE });
  const overflows = udpReceiveOverflows();
  try {
    for (let i = 0; i <= RUNS; i += 1) {
      const { split, sessionId } = await launchOnce(page, baseURL, 'sample', 'follow');
      const ms = split.total;
      try {
        if (i > 0) result.launches.push(ms);
        result.seen.add(await page.evaluate(() => (window as unknown as PageApi).mediaPath()));
        if (i === RUNS) await typeKeys(page, result);
      } finally {
        await fetch(`${apiURL}/stream/${sessionId}`, { method: 'DELETE' });
      }
    }
  } finally {
    await page.close();
  }
  result.udpOverflows = udpReceiveOverflows() - overflows;
  return result;
}

/** RcvbufErrors of /proc/net/snmp: UDP datagrams dropped on this machine because a socket's buffer was full. */
function udpReceiveOverflows(): number {
  const [names, values] = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('Udp:'))
    .map((line) => line.split(/\s+/));
  return Number(values?.[names?.indexOf('RcvbufErrors') ?? -1] ?? NaN);
}

/** The running coturn: the service's child named turnserver. */
function coturnPid(servicePid: number): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === 'turnserver' && ppid === servicePid) return Number(name);
    } catch {
      // gone while we looked
    }
  }
  throw new Error('No turnserver child of the service: is coturn installed (npm run setup)?');
}

/** CPU (cores) of each pid over CPU_SECONDS, and the door's relayed bytes (Mbit/s) meanwhile. */
async function cpuWhile(
  apiURL: string,
  pids: Record<string, number>,
): Promise<{ cores: Record<string, number>; mbits: number }> {
  const relayed = async () =>
    ((await json(`${apiURL}/admin/capacity`)).door as { relay_bytes_out: number }).relay_bytes_out;
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
  const bytes = await relayed();
  const at = Date.now();
  await sleep(CPU_SECONDS * 1000);
  const seconds = (Date.now() - at) / 1000;
  const cores = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, (cpuSeconds(pid) - (before[k] ?? 0)) / seconds]),
  );
  return { cores, mbits: (((await relayed()) - bytes) * 8) / seconds / 1e6 };
}

/** N viewers of a scrolling terminal through the relay, then N direct ones: what each costs coturn and the service. */
async function relayCpu(service: Service): Promise<void> {
  const terminal = await readySession(service.api, 'terminal', 'follow');
  const apiV6 = `http://[::1]:${service.port}/api`;
  const servicePid = service.child.pid as number;
  const viewers: Viewer[] = [];
  const ticket = async () =>
    json(`${apiV6}/stream/${terminal.id}/tickets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
  try {
    // Let the terminal fill and scroll before anyone watches.
    await sleep(2_000);
    for (let i = 0; i < VIEWERS; i += 1) {
      const issued = await ticket();
      viewers.push(
        await openViewer(`${apiV6}/stream/${terminal.id}`, 20_000, issued.ticket as string, {
          iceServers: issued.ice_servers as { urls: string[]; username: string; credential: string }[],
          iceTransportPolicy: 'relay',
          bindAddress: '::1',
        }),
      );
    }
    const relayedPairs = viewers.filter((viewer) => viewer.selectedPair()?.local.type === 'relay').length;
    await sleep(2_000);
    const relayed = await cpuWhile(service.api, { coturn: coturnPid(servicePid), service: servicePid });
    for (const viewer of viewers.splice(0)) await viewer.close();

    for (let i = 0; i < VIEWERS; i += 1) {
      viewers.push(await openViewer(terminal.signaling, 20_000, (await ticket()).ticket as string));
    }
    await sleep(2_000);
    const direct = await cpuWhile(service.api, { service: servicePid });

    const per = (cores: number) => `${((cores / VIEWERS) * 1000).toFixed(1).padStart(6)} millicore`;
    const coturn = relayed.cores.coturn ?? 0;
    const relayService = relayed.cores.service ?? 0;
    const directService = direct.cores.service ?? 0;
    console.log(
      `\nRelay CPU: ${VIEWERS} viewers (${relayedPairs} on a relayed pair) of a scrolling terminal (xterm on the ` +
        `display host, 640x360 at 30 fps), ${CPU_SECONDS} s each way; ${relayed.mbits.toFixed(2)} Mbit/s relayed`,
    );
    console.log('                          total        a viewer');
    console.log(`relay: coturn         ${coturn.toFixed(3)} core  ${per(coturn)}`);
    console.log(`relay: service        ${relayService.toFixed(3)} core  ${per(relayService)}`);
    console.log(
      `relay: both           ${(coturn + relayService).toFixed(3)} core  ${per(coturn + relayService)}`,
    );
    console.log(`direct: service       ${directService.toFixed(3)} core  ${per(directService)}`);
    console.log(
      `the relay's own cost  ${(coturn + relayService - directService).toFixed(3)} core  ` +
        `${per(coturn + relayService - directService)}`,
    );
  } finally {
    for (const viewer of viewers) viewer.drop();
    await fetch(`${service.api}/stream/${terminal.id}`, { method: 'DELETE' });
  }
}

function report(results: PathResult[]): void {
  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-').padStart(8);
  console.log(
    `\nKey to photon (the sample application, its stream following a 1280x800 window, ${KEYS} keys) and Launch ` +
      `click to first frame (after one launch not counted):`,
  );
  console.log('path          seen          key median     p95  keys   launch median  runs');
  for (const r of results) {
    console.log(
      `${r.name.padEnd(14)}${[...r.seen].join(',').padEnd(14)}${ms(median(r.keys))}${ms(quantile(r.keys, 0.95))}` +
        `${String(r.keys.length).padStart(6)}${ms(median(r.launches))}` +
        `       ${String(r.launches.length).padStart(4)}`,
    );
  }
  for (const r of results) {
    const v = r.video;
    if (v) {
      console.log(
        `${r.name}: video packets lost ${v.lost}, NACKs ${v.nacks}, PLIs ${v.plis}, freezes ${v.freezes} ` +
          `(${v.freezeMs.toFixed(0)} ms); UDP datagrams this machine dropped for a full receive buffer ` +
          `meanwhile: ${r.udpOverflows}`,
      );
    }
    if (r.missed.length > 0) console.log(`${r.name}: no frame showed key ${r.missed.join(', ')} within 3 s`);
    if (args.includes('--list'))
      console.log(`${r.name}: each key (ms) ${r.keys.map((k) => k.toFixed(0)).join(' ')}`);
  }
}

async function main(): Promise<void> {
  let network: ClientNetwork | undefined;
  let service: Service | undefined;
  const browsers: Browser[] = [];
  try {
    // Before the service: coturn listens on the addresses there are when it starts, the client network's among them.
    network = await startClientNetwork(NETWORK);
    service = await startE2eService({
      catalog,
      env: {
        // Every address: this machine's browser by 127.0.0.1, the client network's by its host end, Node viewers
        // by ::1.
        HOST: '::',
        STREAMGATE_ALLOW_ANONYMOUS: '1',
        STREAMGATE_TURN_PORT: String(TURN_PORT),
        STREAMGATE_TURN_RELAY_PORTS: RELAY_PORTS,
        STREAMGATE_DOOR_MEDIA: MEDIA_DOOR,
        STREAMGATE_RATE_LIMIT: 'off',
      },
    });
    const direct = await chromium.launch(chromiumLaunchOptions);
    browsers.push(direct);
    const results = [await measurePath(direct, service.url, service.api, 'direct')];
    await direct.close();

    const away = await chromium.launch({ ...chromiumLaunchOptions, executablePath: network.chromium });
    browsers.push(away);
    const awayURL = `http://${network.hostAddress}:${service.port}`;
    results.push(await measurePath(away, awayURL, service.api, 'relay UDP'));
    await network.dropUdp();
    results.push(await measurePath(away, awayURL, service.api, 'relay TCP'));
    await away.close();
    report(results);

    await relayCpu(service);
  } finally {
    for (const browser of browsers) await browser.close().catch(() => undefined);
    await service?.close();
    await network?.stop();
    // libdatachannel's threads outlive the Node viewers' peer connections and would keep the bench from exiting.
    stopWebRtc();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
