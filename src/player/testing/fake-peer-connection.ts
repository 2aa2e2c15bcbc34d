/**
 * A stand-in for RTCPeerConnection with just the surface the player uses, so that the facade can be tested
 * under jsdom (which has no WebRTC). Tests drive it: fire a track, open channels, change the connection state.
 */

/** A data channel whose sent messages are recorded. */
export class FakeDataChannel extends EventTarget {
  readyState: RTCDataChannelState = 'connecting';
  readonly sent: string[] = [];
  constructor(readonly label: string) {
    super();
  }
  send(data: string) {
    if (this.readyState !== 'open') throw new Error('channel not open');
    this.sent.push(data);
  }
  open() {
    this.readyState = 'open';
    this.dispatchEvent(new Event('open'));
  }
  receive(data: string) {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  close() {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    this.dispatchEvent(new Event('close'));
  }
}

/** A received track: only what the player and the page read. */
export class FakeTrack {
  enabled = true;
  readonly id: string;
  constructor(readonly kind: 'video' | 'audio') {
    this.id = `${kind}-track`;
  }
}

/** A stream of received tracks (jsdom has no MediaStream). */
export class FakeMediaStream {
  constructor(
    readonly id: string,
    private readonly tracks: FakeTrack[] = [],
  ) {}
  getTracks() {
    return [...this.tracks];
  }
  getAudioTracks() {
    return this.tracks.filter((t) => t.kind === 'audio');
  }
  getVideoTracks() {
    return this.tracks.filter((t) => t.kind === 'video');
  }
  addTrack(track: FakeTrack) {
    this.tracks.push(track);
  }
}

/** Records what the player did with the connection. */
export class FakePeerConnection extends EventTarget {
  static created: FakePeerConnection[] = [];
  /**
   * When set, the browser's host candidate comes this long after the offer (as in a browser), or never with
   * Infinity; when null, there is no network here and gathering ends with the offer.
   */
  static gatherMs: number | null = null;
  readonly channels: FakeDataChannel[] = [];
  readonly transceivers: { kind: string; direction?: string }[] = [];
  connectionState: RTCPeerConnectionState = 'new';
  localDescription: { type: string; sdp: string } | null = null;
  iceGatheringState: RTCIceGatheringState = 'new';
  remoteDescription: { type: string; sdp: string } | null = null;
  closed = false;
  stats = new Map<string, Record<string, unknown>>();

  constructor(readonly config: RTCConfiguration) {
    super();
    FakePeerConnection.created.push(this);
  }
  addTransceiver(kind: string, init?: { direction?: string }) {
    this.transceivers.push({ kind, direction: init?.direction });
  }
  createDataChannel(label: string) {
    const channel = new FakeDataChannel(label);
    this.channels.push(channel);
    return channel;
  }
  channel(label: string): FakeDataChannel {
    const found = this.channels.find((c) => c.label === label);
    if (!found) throw new Error(`no channel ${label}`);
    return found;
  }
  async createOffer() {
    const media = this.transceivers
      .map((t) => `m=${t.kind} 9 UDP/TLS/RTP/SAVPF 96\r\na=${t.direction}\r\n`)
      .join('');
    return { type: 'offer', sdp: `v=0\r\n${media}m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n` };
  }
  async setLocalDescription(description: { type: string; sdp: string }) {
    this.localDescription = description;
    const after = FakePeerConnection.gatherMs;
    if (after === null) {
      this.iceGatheringState = 'complete';
      return;
    }
    this.iceGatheringState = 'gathering';
    if (after === Infinity) return;
    setTimeout(() => {
      const candidate =
        'candidate:1 1 udp 2113937151 0f0e2d1c-3b4a-4c5d-8e9f-a0b1c2d3e4f5.local 54321 typ host';
      this.localDescription = { type: description.type, sdp: `${description.sdp}a=${candidate}\r\n` };
      const event = new Event('icecandidate') as Event & { candidate: unknown };
      event.candidate = { candidate };
      this.dispatchEvent(event);
    }, after);
  }
  async setRemoteDescription(description: { type: string; sdp: string }) {
    this.remoteDescription = description;
  }
  async getStats() {
    return this.stats;
  }
  close() {
    this.closed = true;
    this.connectionState = 'closed';
    for (const channel of this.channels) channel.readyState = 'closed';
  }
  /** The one stream the application's tracks share (msid 'streamgate'), as the browser builds it. */
  readonly remoteStream = new FakeMediaStream('streamgate');

  /**
   * The application sends a track, by default the video. `stream: 'own'` puts it in a stream of its own, as
   * an answer whose tracks have different msids would.
   */
  fireTrack(kind: 'video' | 'audio' = 'video', stream: 'shared' | 'own' = 'shared') {
    const track = new FakeTrack(kind);
    const event = new Event('track') as Event & { streams: unknown[]; track: unknown };
    if (stream === 'shared') this.remoteStream.addTrack(track);
    event.streams = [stream === 'shared' ? this.remoteStream : new FakeMediaStream(kind, [track])];
    event.track = track;
    this.dispatchEvent(event);
  }
  setConnectionState(state: RTCPeerConnectionState) {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
}
