/**
 * A real WHEP viewer without a browser: libdatachannel (node-datachannel) as the client peer, with a
 * recvonly VP8 track and the `input` and `messages` channels, as the portal's player offers them.
 */
import { PeerConnection, Video, type DataChannel } from 'node-datachannel';

export interface ViewerResult {
  /** Status of POST /whep. */
  status: number;
  /** The application's answer to `loadingStateQuery` on the `messages` channel. */
  reply: Record<string, unknown>;
}

/** Makes a real offer: what the player would send. */
export async function makeOffer(): Promise<{ sdp: string; pc: PeerConnection; messages: DataChannel }> {
  const pc = new PeerConnection('viewer', { iceServers: [] });
  const video = new Video('0', 'RecvOnly');
  video.addVP8Codec(96);
  pc.addTrack(video);
  const sdp = new Promise<string>((resolve) => pc.onLocalDescription((text) => resolve(text)));
  pc.createDataChannel('input');
  const messages = pc.createDataChannel('messages');
  return { sdp: await sdp, pc, messages };
}

/**
 * Connects to `signalingUrl` (http://host:port), asks the loading state over the `messages` channel
 * and disconnects. Rejects when no reply comes within `timeoutMs` (a guard, not a measure).
 */
export async function connectViewer(signalingUrl: string, timeoutMs = 20_000): Promise<ViewerResult> {
  const { sdp, pc, messages } = await makeOffer();
  try {
    const res = await fetch(`${signalingUrl}/whep`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp' },
      body: sdp,
    });
    const answer = await res.text();
    if (res.status !== 201) return { status: res.status, reply: {} };
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no reply on the messages channel')), timeoutMs);
      messages.onMessage((message) => {
        clearTimeout(timer);
        resolve(JSON.parse(String(message)) as Record<string, unknown>);
      });
      messages.onOpen(() =>
        messages.sendMessage(JSON.stringify({ event_type: 'loadingStateQuery', payload: {} })),
      );
    });
    pc.setRemoteDescription(answer, 'answer');
    const location = res.headers.get('location');
    const result = { status: res.status, reply: await reply };
    if (location) await fetch(new URL(location, signalingUrl), { method: 'DELETE' });
    return result;
  } finally {
    pc.close();
  }
}
