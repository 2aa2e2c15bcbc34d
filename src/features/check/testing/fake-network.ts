/**
 * A browser's network for the check's tests (jsdom has no WebRTC): the player's fake peer connection, which here
 * also gathers a relay candidate for each TURN URL of its configuration that the network lets through, says in its
 * statistics which path the media takes, and receives the application's video once answered.
 */
// The player's own test double, not a part of its surface: only tests reach inside.
// eslint-disable-next-line no-restricted-imports
import { FakePeerConnection } from '../../../player/testing/fake-peer-connection';
import { turnUrls } from '../api/turn-url';

/** What the network lets through to the relay; `video`: whether the application sends its video. */
export interface FakeNetwork {
  udp: boolean;
  tcp: boolean;
  video: boolean;
}

/** A peer connection on the network `FakeNetworkPeer.network`. */
export class FakeNetworkPeer extends FakePeerConnection {
  static network: FakeNetwork = { udp: true, tcp: true, video: true };

  constructor(config: RTCConfiguration) {
    super(config);
    const relays = turnUrls(config.iceServers ?? []);
    const { udp, tcp } = FakeNetworkPeer.network;
    const local =
      relays.length === 0
        ? { candidateType: 'host' }
        : { candidateType: 'relay', relayProtocol: udp ? 'udp' : tcp ? 'tcp' : undefined };
    this.stats = new Map<string, Record<string, unknown>>([
      ['T', { type: 'transport', selectedCandidatePairId: 'P' }],
      ['P', { type: 'candidate-pair', localCandidateId: 'L', remoteCandidateId: 'R' }],
      ['L', { type: 'local-candidate', ...local }],
      ['R', { type: 'remote-candidate', candidateType: 'host' }],
    ]);
  }

  private candidate(candidate: string, relayProtocol?: string) {
    const event = new Event('icecandidate') as Event & { candidate: unknown };
    event.candidate = candidate ? { candidate, relayProtocol } : null;
    this.dispatchEvent(event);
  }

  /** Gathers as a browser does, a moment after the offer; a relay it cannot reach holds gathering up for good. */
  override async setLocalDescription(description: { type: string; sdp: string }) {
    this.localDescription = description;
    this.iceGatheringState = 'gathering';
    const { udp, tcp } = FakeNetworkPeer.network;
    const relays = turnUrls(this.config.iceServers ?? []);
    setTimeout(() => {
      this.candidate('candidate:1 1 udp 2113937151 0f0e2d1c.local 54321 typ host');
      for (const relay of relays)
        if (relay.transport === 'udp' ? udp : tcp)
          this.candidate(
            'candidate:2 1 udp 41885439 198.51.100.7 50000 typ relay raddr 0.0.0.0 rport 0',
            relay.transport,
          );
      if (relays.some((relay) => !(relay.transport === 'udp' ? udp : tcp))) return;
      this.iceGatheringState = 'complete';
      this.candidate('');
      this.dispatchEvent(new Event('icegatheringstatechange'));
    }, 1);
  }

  override async setRemoteDescription(description: { type: string; sdp: string }) {
    await super.setRemoteDescription(description);
    if (FakeNetworkPeer.network.video) setTimeout(() => this.fireTrack('video'), 1);
  }
}

/** For each test of the calling file: a fresh record of peers on an open network. */
export function resetFakeNetwork(network: Partial<FakeNetwork> = {}): void {
  FakePeerConnection.created = [];
  FakeNetworkPeer.network = { udp: true, tcp: true, video: true, ...network };
}

/** `play()` of a video that shows its first frame at once: for `HTMLMediaElement.prototype` or one video. */
export function showsFirstFrame(this: HTMLMediaElement): Promise<void> {
  this.dispatchEvent(new Event('loadeddata'));
  return Promise.resolve();
}

/** A video element that shows its first frame as soon as it is told to play (jsdom plays nothing). */
export function framingVideo(): HTMLVideoElement {
  const video = document.createElement('video');
  video.play = showsFirstFrame;
  return video;
}
