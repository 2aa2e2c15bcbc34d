/**
 * A real WHEP viewer without a browser: libdatachannel (node-datachannel) as the client peer, with a
 * recvonly VP8 track and the `input` and `messages` channels, as the portal's player offers them. It may be
 * given TURN relays (the ticket reply's `ice_servers`, CONTRACT §21).
 */
import {
  PeerConnection,
  RtcpReceivingSession,
  Video,
  type DataChannel,
  type IceServer,
  type Track,
} from 'node-datachannel';

/** The relays a viewer may use, in the shape of WebRTC's RTCIceServer (the ticket reply's `ice_servers`). */
export interface ViewerNetwork {
  iceServers?: { urls: string[]; username?: string; credential?: string }[];
  /**
   * `relay`: only relayed candidates in the offer. libjuice still checks from its own socket to every candidate
   * of the answer, so this alone does not keep it off a direct path: `bindAddress` does.
   */
  iceTransportPolicy?: 'all' | 'relay';
  /**
   * The one local address its ICE agent binds: `::1` leaves a session's IPv4 candidates out of its reach, and
   * a relay (reached by ::1, relaying over IPv4) the only way to them, as for a browser on another network.
   */
  bindAddress?: string;
}

const TURN_UDP = /^turn:(\[[0-9A-Fa-f:.]+\]|[^:?]+):(\d+)(?:\?transport=udp)?$/;

/**
 * The TURN/UDP servers of `servers` as libdatachannel takes them: as objects, because the TURN REST username
 * holds a colon that its URL form cannot carry. libjuice relays over UDP only, so other URLs are left out.
 */
function turnServers(servers: ViewerNetwork['iceServers'] = []): IceServer[] {
  return servers.flatMap((server) =>
    server.urls.flatMap((url) => {
      const match = TURN_UDP.exec(url);
      if (!match) return [];
      return [
        {
          hostname: (match[1] as string).replace(/^\[|\]$/g, ''),
          port: Number(match[2]),
          ...(server.username !== undefined ? { username: server.username } : {}),
          ...(server.credential !== undefined ? { password: server.credential } : {}),
          relayType: 'TurnUdp' as const,
        },
      ];
    }),
  );
}

/**
 * Makes a real offer: what the player would send. With relays, it waits until they are gathered, so that the
 * offer carries its relayed candidates (WHEP here does not trickle).
 */
export async function makeOffer(network: ViewerNetwork = {}): Promise<{
  sdp: string;
  pc: PeerConnection;
  input: DataChannel;
  messages: DataChannel;
  /** Held by whoever keeps the viewer: a native track whose last JS reference is collected goes silent. */
  track: Track;
  videoPackets: () => number;
  videoBytes: () => number;
  videoFrames: () => number;
}> {
  const iceServers = turnServers(network.iceServers);
  const pc = new PeerConnection('viewer', {
    iceServers,
    ...(network.iceTransportPolicy ? { iceTransportPolicy: network.iceTransportPolicy } : {}),
    ...(network.bindAddress ? { bindAddress: network.bindAddress } : {}),
  });
  const video = new Video('0', 'RecvOnly');
  video.addVP8Codec(96);
  const track = pc.addTrack(video);
  // It also answers with receiver reports, as a browser does, which tell the application it is watched.
  track.setMediaHandler(new RtcpReceivingSession());
  let packets = 0;
  let bytes = 0;
  let frames = 0;
  track.onMessage((message) => {
    packets++;
    bytes += message.length;
    // RTP's marker bit ends a video frame.
    if (((message[1] ?? 0) & 0x80) !== 0) frames++;
  });
  const sdp = new Promise<string>((resolve) => pc.onLocalDescription((text) => resolve(text)));
  const gathered = new Promise<void>((resolve) =>
    pc.onGatheringStateChange((state) => {
      if (state === 'complete') resolve();
    }),
  );
  const input = pc.createDataChannel('input');
  const messages = pc.createDataChannel('messages');
  const offer = await sdp;
  // With relays, the offer waits for their candidates; without, its first description is complete.
  if (iceServers.length > 0) await gathered;
  return {
    sdp: iceServers.length > 0 ? (pc.localDescription()?.sdp ?? offer) : offer,
    pc,
    input,
    messages,
    track,
    videoPackets: () => packets,
    videoBytes: () => bytes,
    videoFrames: () => frames,
  };
}

export interface Viewer {
  /** Status of POST /whep. */
  status: number;
  input: DataChannel;
  messages: DataChannel;
  /**
   * Sends `{event_type, payload}` on `messages` and resolves with the first message of `replyType` that
   * comes back (replies to earlier messages are skipped).
   */
  ask(
    eventType: string,
    replyType: string,
    payload?: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** Every message received so far. */
  received: Record<string, unknown>[];
  /** The video track, kept referenced for as long as the viewer is. */
  track: Track;
  /** RTP packets of the video track received so far. */
  videoPackets(): number;
  /** Their bytes (headers included). */
  videoBytes(): number;
  /** The video frames they completed (RTP packets with the marker bit). */
  videoFrames(): number;
  /** The candidate pair in use (its local candidate's type says `relay` through a TURN relay); null before. */
  selectedPair(): {
    local: { type: string; address: string };
    remote: { address: string; port: number };
  } | null;
  /** The peer closed without a DELETE, as a closed tab or a lost network leaves it. */
  drop(): void;
  /** DELETE of the WHEP resource, and the peer closed. */
  close(): Promise<void>;
}

/**
 * Connects to `signalingUrl` (http://host:port) and waits until both data channels are open. Rejects
 * when POST /whep is not a 201, or the channels do not open within `timeoutMs` (a guard, not a measure).
 * `ticket` goes in `Authorization: Bearer` on the POST and on the DELETE of `close()`.
 */
export async function openViewer(
  signalingUrl: string,
  timeoutMs = 20_000,
  ticket?: string,
  network: ViewerNetwork = {},
): Promise<Viewer> {
  const auth: Record<string, string> = ticket ? { authorization: `Bearer ${ticket}` } : {};
  const { sdp, pc, input, messages, track, videoPackets, videoBytes, videoFrames } = await makeOffer(network);
  const replies: Record<string, unknown>[] = [];
  const received: Record<string, unknown>[] = [];
  let wake: (() => void) | undefined;
  messages.onMessage((message) => {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(String(message)) as Record<string, unknown>;
    } catch {
      parsed = { unparsed: String(message) };
    }
    replies.push(parsed);
    received.push(parsed);
    wake?.();
  });
  const opened = (channel: DataChannel) =>
    new Promise<void>((resolve) => (channel.isOpen() ? resolve() : channel.onOpen(() => resolve())));
  const res = await fetch(`${signalingUrl}/whep`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp', ...auth },
    body: sdp,
  });
  const answer = await res.text();
  if (res.status !== 201) {
    pc.close();
    throw new Error(`POST /whep answered ${res.status}: ${answer}`);
  }
  const location = new URL(res.headers.get('location') ?? '/whep', signalingUrl);
  pc.setRemoteDescription(answer, 'answer');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all([opened(input), opened(messages)]),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('the data channels did not open')), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    status: res.status,
    input,
    messages,
    received,
    track,
    videoPackets,
    videoBytes,
    videoFrames,
    selectedPair: () => pc.getSelectedCandidatePair(),
    drop: () => pc.close(),
    async ask(eventType, replyType, payload = {}) {
      replies.length = 0;
      messages.sendMessage(JSON.stringify({ event_type: eventType, payload }));
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = replies.findIndex((reply) => reply.event_type === replyType);
        if (index >= 0) return replies.splice(index, 1)[0] as Record<string, unknown>;
        if (Date.now() > deadline) throw new Error(`no ${replyType} in reply to ${eventType}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
    async close() {
      await fetch(location, { method: 'DELETE', headers: auth }).catch(() => undefined);
      pc.close();
    },
  };
}
