/**
 * The media door's decisions without sockets: node:dgram is replaced by fakes that record what is sent, so that
 * the hot path, the queue of a connecting flow, the caps and the idle sweep run on fake time.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MediaDoor } from './media-door.ts';
import { AttributeType, encodeStun, getAttribute, parseStun, StunMethod, textAttribute } from './stun.ts';

const fakes = vi.hoisted(() => ({ sockets: [] as unknown[], bindError: undefined as Error | undefined }));

vi.mock('node:dgram', async () => {
  const { EventEmitter: Emitter } = await import('node:events');
  class FakeSocket extends Emitter {
    sent: { packet: Buffer; port?: number; host?: string }[] = [];
    bound = { address: '0.0.0.0', port: 0 };
    connectedTo: { port: number; host: string } | undefined;
    closed = false;
    bind(options: { address: string; port: number }, callback: () => void) {
      const error = fakes.bindError;
      void Promise.resolve().then(() => {
        if (error) this.emit('error', error);
        else {
          this.bound = { address: options.address, port: options.port || 40000 };
          callback();
        }
      });
    }
    address() {
      return { ...this.bound, family: 'IPv4' };
    }
    connect(port: number, host: string) {
      this.connectedTo = { port, host };
    }
    send(packet: Buffer, port?: number, host?: string) {
      this.sent.push({ packet, port, host });
    }
    close(callback?: () => void) {
      if (this.closed) throw new Error('Not running');
      this.closed = true;
      callback?.();
    }
  }
  return {
    createSocket: () => {
      const socket = new FakeSocket();
      fakes.sockets.push(socket);
      return socket;
    },
  };
});

interface FakeSocket extends EventEmitter {
  sent: { packet: Buffer; port?: number; host?: string }[];
  connectedTo: { port: number; host: string } | undefined;
  closed: boolean;
}

const sockets = () => fakes.sockets as FakeSocket[];
const PWD = 'application-ice-password-24';

function check(options: { ufrag?: string; pwd?: string; tiebreaker?: Buffer } = {}): Buffer {
  return encodeStun(
    {
      method: StunMethod.Binding,
      cls: 'request',
      attributes: [
        textAttribute(AttributeType.Username, `${options.ufrag ?? 'appU'}:brwz`),
        { type: AttributeType.IceControlling, value: options.tiebreaker ?? Buffer.alloc(8) },
      ],
    },
    { integrityKey: Buffer.from(options.pwd ?? PWD), fingerprint: true },
  );
}

const rtp = (n: number) => Buffer.from([0x80, 0x60, 0, n, 0xde, 0xad]);

let clock = 0;
let door: MediaDoor;
const warn = vi.fn();

async function open(options: { idleMs?: number; maxFlowsPerViewer?: number; maxFlows?: number } = {}) {
  door = await MediaDoor.open({ host: '127.0.0.2', port: 3480, now: () => clock, log: { warn }, ...options });
  door.admit({ sessionId: 's1', ufrag: 'appU', pwd: PWD, target: { host: '10.0.0.7', port: 47001 } });
  const doorSocket = sockets()[0] as FakeSocket;
  const from = (port: number, packet: Buffer, address = '127.0.0.1') =>
    doorSocket.emit('message', packet, { address, port, family: 'IPv4', size: packet.length });
  return { doorSocket, from };
}

beforeEach(() => {
  vi.useFakeTimers();
  fakes.sockets.length = 0;
  fakes.bindError = undefined;
  clock = 0;
  warn.mockClear();
});

afterEach(async () => {
  await door?.close();
  vi.useRealTimers();
});

describe('MediaDoor without sockets', () => {
  it('forwards the datagram itself on an established flow, and answers through the door', async () => {
    const { doorSocket, from } = await open();
    expect(door.address).toEqual({ host: '127.0.0.2', port: 3480 });
    from(50001, check());
    const upstream = sockets()[1] as FakeSocket;
    expect(upstream.connectedTo).toEqual({ port: 47001, host: '10.0.0.7' });
    // Held until connected, then sent in order.
    from(50001, rtp(1));
    expect(upstream.sent).toHaveLength(0);
    upstream.emit('connect');
    expect(upstream.sent.map(({ packet }) => packet[0])).toEqual([0x00, 0x80]);

    // The check went up with its zero tiebreaker replaced; media goes up as the very Buffer received.
    const forwarded = parseStun(upstream.sent[0]?.packet ?? Buffer.alloc(0));
    if (!forwarded) throw new Error('The check went up as something else than STUN');
    expect(getAttribute(forwarded, AttributeType.IceControlling)?.equals(Buffer.alloc(8))).toBe(false);
    const media = rtp(2);
    from(50001, media);
    expect(upstream.sent[2]?.packet).toBe(media);

    const answer = Buffer.from('answer');
    upstream.emit('message', answer, { address: '10.0.0.7', port: 47001, family: 'IPv4', size: 6 });
    expect(doorSocket.sent).toEqual([{ packet: answer, port: 50001, host: '127.0.0.1' }]);
    expect(door.stats()).toEqual({
      flows: 1,
      viewers: 1,
      packetsIn: 3,
      bytesIn: upstream.sent.reduce((sum, { packet }) => sum + packet.length, 0),
      packetsOut: 1,
      bytesOut: 6,
      dropped: 0,
    });
  });

  it('holds at most eight datagrams while a flow connects', async () => {
    const { from } = await open();
    from(50001, check());
    for (let i = 0; i < 10; i += 1) from(50001, rtp(i));
    const upstream = sockets()[1] as FakeSocket;
    upstream.emit('connect');
    expect(upstream.sent).toHaveLength(8);
    expect(door.stats().dropped).toBe(3);
  });

  it('drops strangers, unsigned checks and sources on port 0', async () => {
    const { from } = await open();
    from(50001, rtp(1));
    from(50001, check({ pwd: 'wrong' }));
    from(50001, check({ ufrag: 'unknown' }));
    from(0, check());
    expect(sockets()).toHaveLength(1);
    expect(door.stats()).toMatchObject({ flows: 0, dropped: 4, packetsIn: 0 });
  });

  it('closes idle flows on the injected clock, and keeps busy ones', async () => {
    const { from } = await open({ idleMs: 10_000 });
    from(50001, check());
    from(50002, check());
    const [, quiet, busy] = sockets() as FakeSocket[];
    quiet?.emit('connect');
    busy?.emit('connect');
    for (let t = 0; t < 12; t += 1) {
      clock += 1000;
      from(50002, rtp(t));
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(quiet?.closed).toBe(true);
    expect(busy?.closed).toBe(false);
    expect(door.stats().flows).toBe(1);
    // An answer from the application keeps a flow too.
    for (let t = 0; t < 12; t += 1) {
      clock += 1000;
      busy?.emit('message', rtp(t), { address: '10.0.0.7', port: 47001, family: 'IPv4', size: 6 });
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(busy?.closed).toBe(false);
    clock += 10_000;
    await vi.advanceTimersByTimeAsync(1000);
    expect(busy?.closed).toBe(true);
    expect(door.stats().flows).toBe(0);
  });

  it("gives a relay port coturn hands out again to the viewer its new checks name, never the old one's session", async () => {
    const { from } = await open();
    door.admit({ sessionId: 's2', ufrag: 'other', pwd: PWD, target: { host: '10.0.0.8', port: 47002 } });
    from(50001, check());
    const old = sockets()[1] as FakeSocket;
    old.emit('connect');
    // The same relay port, now another allocation's: its signed check for another admitted viewer takes it over.
    from(50001, check({ ufrag: 'other' }));
    expect(old.closed).toBe(true);
    const taken = sockets()[2] as FakeSocket;
    expect(taken.connectedTo).toEqual({ host: '10.0.0.8', port: 47002 });
    taken.emit('connect');
    from(50001, rtp(1));
    expect(old.sent).toHaveLength(1);
    // A check that names nobody admitted closes the stale flow and opens none.
    from(50001, check({ ufrag: 'stranger' }));
    expect(door.stats().flows).toBe(0);
    expect(door.stats()).toMatchObject({ flows: 0 });
  });

  it('caps flows per viewer and in all, and says so once', async () => {
    const { from } = await open({ maxFlowsPerViewer: 2, maxFlows: 3 });
    door.admit({ sessionId: 's2', ufrag: 'other', pwd: PWD, target: { host: '10.0.0.8', port: 47002 } });
    for (const port of [1, 2, 3, 4]) from(50000 + port, check());
    for (const port of [5, 6, 7]) from(50000 + port, check({ ufrag: 'other' }));
    expect(door.stats()).toMatchObject({ flows: 3, dropped: 4 });
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('closes the flows of a forgotten viewer or session, and starts afresh on new credentials', async () => {
    const { from } = await open();
    from(50001, check());
    const first = sockets()[1] as FakeSocket;
    // The same answer again changes nothing.
    door.admit({ sessionId: 's1', ufrag: 'appU', pwd: PWD, target: { host: '10.0.0.7', port: 47001 } });
    expect(first.closed).toBe(false);
    // Another target for the ufrag: the old flows go.
    door.admit({ sessionId: 's1', ufrag: 'appU', pwd: PWD, target: { host: '10.0.0.7', port: 47009 } });
    expect(first.closed).toBe(true);
    from(50001, check());
    const second = sockets()[2] as FakeSocket;
    expect(second.connectedTo?.port).toBe(47009);
    door.forgetSession('s1');
    expect(second.closed).toBe(true);
    expect(door.stats()).toMatchObject({ flows: 0, viewers: 0 });
    door.forgetSession('s1');
    door.forget('appU');
  });

  it('drops a flow whose socket fails before it connects, and keeps one that hears ICMP after', async () => {
    const { from } = await open();
    from(50001, check());
    const failing = sockets()[1] as FakeSocket;
    failing.emit('error', Object.assign(new Error('send EMFILE'), { code: 'EMFILE' }));
    expect(failing.closed).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    from(50002, check());
    const refused = sockets()[2] as FakeSocket;
    refused.emit('connect');
    refused.emit('error', Object.assign(new Error('recv ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(refused.closed).toBe(false);
    expect(door.stats().flows).toBe(1);
  });

  it('names the address it cannot bind', async () => {
    fakes.bindError = Object.assign(new Error('bind EADDRINUSE 127.0.0.2:3480'), { code: 'EADDRINUSE' });
    await expect(MediaDoor.open({ host: '127.0.0.2', port: 3480 })).rejects.toThrow(
      'The media door cannot bind UDP 127.0.0.2:3480 (EADDRINUSE).',
    );
  });

  it('closes every socket once, and admits nothing after', async () => {
    const { doorSocket, from } = await open();
    from(50001, check());
    await Promise.all([door.close(), door.close()]);
    expect(sockets().every((socket) => socket.closed)).toBe(true);
    door.admit({ sessionId: 's1', ufrag: 'appU', pwd: PWD, target: { host: '10.0.0.7', port: 47001 } });
    expect(door.stats()).toMatchObject({ flows: 0, viewers: 0 });
    expect(doorSocket.closed).toBe(true);
  });
});
