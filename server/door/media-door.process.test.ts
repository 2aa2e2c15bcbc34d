/**
 * The media door on real UDP sockets of loopback: a fake application that answers ICE checks as libjuice would,
 * and sockets that stand for the relay's allocations.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../../test-support/until.ts';
import { MediaDoor, type MediaDoorOptions } from './media-door.ts';
import {
  AttributeType,
  encodeStun,
  encodeXorAddress,
  getAttribute,
  isBindingRequest,
  parseStun,
  StunMethod,
  textAttribute,
  verifyFingerprint,
  verifyMessageIntegrity,
} from './stun.ts';

const APP_UFRAG = 'appU';
const APP_PWD = 'application-ice-password-24';

interface Received {
  packet: Buffer;
  from: RemoteInfo;
}

const sockets: Socket[] = [];

async function udpSocket(
  host = '127.0.0.1',
): Promise<{ socket: Socket; port: number; received: Received[] }> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  const received: Received[] = [];
  socket.on('message', (packet, from) => received.push({ packet, from }));
  await new Promise<void>((resolve) => socket.bind(0, host, resolve));
  return { socket, port: socket.address().port, received };
}

/** Answers each check as libjuice does, with its own password, and echoes media with a prefix. */
async function fakeApplication() {
  const app = await udpSocket();
  app.socket.on('message', (packet, from) => {
    if (isBindingRequest(packet)) {
      const request = parseStun(packet);
      if (!request || !verifyMessageIntegrity(packet, Buffer.from(APP_PWD))) return;
      const answer = encodeStun(
        {
          method: StunMethod.Binding,
          cls: 'success',
          transactionId: request.transactionId,
          attributes: [
            {
              type: AttributeType.XorMappedAddress,
              value: encodeXorAddress({ host: from.address, port: from.port }, request.transactionId),
            },
          ],
        },
        { integrityKey: Buffer.from(APP_PWD), fingerprint: true },
      );
      app.socket.send(answer, from.port, from.address);
    } else {
      app.socket.send(Buffer.concat([Buffer.from('echo:'), packet]), from.port, from.address);
    }
  });
  return app;
}

/** An ICE check as Chromium sends it over TURN/TCP: ICE-CONTROLLING with a zero tiebreaker. */
function check(options: { ufrag?: string; pwd?: string; tiebreaker?: Buffer } = {}): Buffer {
  return encodeStun(
    {
      method: StunMethod.Binding,
      cls: 'request',
      attributes: [
        textAttribute(AttributeType.Username, `${options.ufrag ?? APP_UFRAG}:brwz`),
        { type: AttributeType.IceControlling, value: options.tiebreaker ?? Buffer.alloc(8) },
        { type: AttributeType.Priority, value: Buffer.from('6e0001ff', 'hex') },
      ],
    },
    { integrityKey: Buffer.from(options.pwd ?? APP_PWD), fingerprint: true },
  );
}

function send(socket: Socket, packet: Buffer, door: MediaDoor): void {
  socket.send(packet, door.address.port, door.address.host);
}

let door: MediaDoor;
let app: Awaited<ReturnType<typeof fakeApplication>>;
let clock = 1_000_000;

async function openDoor(options: Partial<MediaDoorOptions> = {}): Promise<MediaDoor> {
  door = await MediaDoor.open({ host: '127.0.0.1', port: 0, now: () => clock, ...options });
  return door;
}

function admit(sessionId = 's1', ufrag = APP_UFRAG): void {
  door.admit({ sessionId, ufrag, pwd: APP_PWD, target: { host: '127.0.0.1', port: app.port } });
}

beforeEach(async () => {
  clock = 1_000_000;
  app = await fakeApplication();
});

afterEach(async () => {
  await door?.close();
  for (const socket of sockets.splice(0)) socket.close();
});

describe('the media door', () => {
  it('forwards a signed check with its zero tiebreaker fixed and brings the answer back', async () => {
    await openDoor();
    admit();
    const relay = await udpSocket();
    const sent = check();
    send(relay.socket, sent, door);

    const { packet, from } = await until('the check at the application', () => app.received[0]);
    // It comes from the flow's own socket, not the door's.
    expect(from.port).not.toBe(door.address.port);
    const forwarded = parseStun(packet);
    if (!forwarded) throw new Error('not STUN');
    const tiebreaker = getAttribute(forwarded, AttributeType.IceControlling);
    expect(tiebreaker).toHaveLength(8);
    expect(tiebreaker?.equals(Buffer.alloc(8))).toBe(false);
    expect(verifyMessageIntegrity(packet, Buffer.from(APP_PWD))).toBe(true);
    expect(verifyFingerprint(packet)).toBe(true);
    expect(forwarded.transactionId).toEqual(sent.subarray(8, 20));

    const answer = await until('the answer at the relay', () => relay.received[0]);
    expect(answer.from.port).toBe(door.address.port);
    const success = parseStun(answer.packet);
    expect(success?.cls).toBe('success');
    expect(verifyMessageIntegrity(answer.packet, Buffer.from(APP_PWD))).toBe(true);

    // A second check of the same viewer carries the same tiebreaker: one per viewer, as ICE has one per agent.
    send(relay.socket, check(), door);
    const second = await until('the second check', () => app.received[1]);
    expect(getAttribute(parseStun(second.packet) ?? forwarded, AttributeType.IceControlling)).toEqual(
      tiebreaker,
    );
    expect(second.from.port).toBe(from.port);

    // A check with a tiebreaker already set goes as it is.
    const set = check({ tiebreaker: Buffer.from('0102030405060708', 'hex') });
    send(relay.socket, set, door);
    const third = await until('the third check', () => app.received[2]);
    expect(third.packet).toEqual(set);
  });

  it('carries media both ways on a flow', async () => {
    await openDoor();
    admit();
    const relay = await udpSocket();
    send(relay.socket, check(), door);
    await until('the check answered', () => relay.received[0]);

    // RTP-like datagrams, not STUN: they pass only because the source has a flow.
    for (let i = 0; i < 5; i += 1) send(relay.socket, Buffer.from([0x80, 0x60, 0, i, 1, 2, 3]), door);
    await until('media at the application', () => app.received.length === 6);
    await until('echoes at the relay', () => relay.received.length === 6);
    expect(relay.received.slice(1).map(({ packet }) => packet.subarray(0, 5).toString())).toEqual(
      Array(5).fill('echo:'),
    );
    expect(relay.received.every(({ from }) => from.port === door.address.port)).toBe(true);
    const stats = door.stats();
    expect(stats).toMatchObject({ flows: 1, viewers: 1, packetsIn: 6, packetsOut: 6, dropped: 0 });
    expect(stats.bytesOut).toBe(relay.received.reduce((sum, { packet }) => sum + packet.length, 0));
  });

  it('drops what unknown sources send, and checks that are not signed with the password', async () => {
    await openDoor();
    admit();
    const stranger = await udpSocket();
    send(stranger.socket, Buffer.from([0x80, 0x60, 0, 1, 1, 2, 3]), door);
    send(stranger.socket, check({ ufrag: 'nobody' }), door);
    send(stranger.socket, check({ pwd: 'not-the-application-password' }), door);
    const unsigned = encodeStun({
      method: StunMethod.Binding,
      cls: 'request',
      attributes: [textAttribute(AttributeType.Username, `${APP_UFRAG}:brwz`)],
    });
    send(stranger.socket, unsigned, door);
    await until('four drops', () => door.stats().dropped === 4);
    expect(door.stats()).toMatchObject({ flows: 0, packetsIn: 0 });
    expect(app.received).toHaveLength(0);
    expect(stranger.received).toHaveLength(0);

    // A forgotten viewer's checks open nothing either.
    door.forget(APP_UFRAG);
    send(stranger.socket, check(), door);
    await until('a fifth drop', () => door.stats().dropped === 5);
    expect(app.received).toHaveLength(0);
  });

  it('closes the flows of a forgotten session at once', async () => {
    await openDoor();
    admit('s1', APP_UFRAG);
    admit('s2', 'other');
    const relay = await udpSocket();
    send(relay.socket, check(), door);
    await until('the check answered', () => relay.received[0]);
    expect(door.stats()).toMatchObject({ flows: 1, viewers: 2 });

    door.forgetSession('s1');
    expect(door.stats()).toMatchObject({ flows: 0, viewers: 1 });
    send(relay.socket, Buffer.from([0x80, 0x60, 0, 1]), door);
    await until('the media dropped', () => door.stats().dropped === 1);
    expect(app.received).toHaveLength(1);
  });

  it('closes a flow idle for idleMs', async () => {
    await openDoor({ idleMs: 100 });
    admit();
    const relay = await udpSocket();
    send(relay.socket, check(), door);
    await until('the check answered', () => relay.received[0]);
    expect(door.stats().flows).toBe(1);

    // Short of the idle time, a few looks of the sweeper keep it.
    clock += 99;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(door.stats().flows).toBe(1);
    clock += 1;
    await until('the idle flow closed', () => door.stats().flows === 0, 5_000);

    // Media of a closed flow is a stranger's; a new signed check opens a new flow.
    send(relay.socket, Buffer.from([0x80, 0x60, 0, 1]), door);
    await until('the media dropped', () => door.stats().dropped === 1);
    send(relay.socket, check(), door);
    await until('a new flow', () => door.stats().flows === 1);
  });

  it('opens no more flows than its caps', async () => {
    await openDoor({ maxFlowsPerViewer: 2, maxFlows: 3 });
    admit('s1', APP_UFRAG);
    admit('s1', 'second');
    const relays = await Promise.all([1, 2, 3, 4, 5].map(() => udpSocket()));
    for (const relay of relays.slice(0, 3)) send(relay.socket, check(), door);
    await until('two flows and a drop', () => door.stats().flows === 2 && door.stats().dropped === 1);
    for (const relay of relays.slice(3)) send(relay.socket, check({ ufrag: 'second' }), door);
    await until('three flows and another drop', () => door.stats().flows === 3 && door.stats().dropped === 2);
  });

  it('says which address it cannot bind', async () => {
    const taken = await udpSocket('127.0.0.1');
    await expect(MediaDoor.open({ host: '127.0.0.1', port: taken.port })).rejects.toThrow(
      `The media door cannot bind UDP 127.0.0.1:${taken.port} (EADDRINUSE).`,
    );
  });

  it('closes once, however often it is asked', async () => {
    await openDoor();
    admit();
    const relay = await udpSocket();
    send(relay.socket, check(), door);
    await until('the check answered', () => relay.received[0]);
    await Promise.all([door.close(), door.close()]);
    await door.close();
    expect(door.stats().flows).toBe(0);
    // The port is free again.
    const again = await MediaDoor.open({ host: '127.0.0.1', port: door.address.port });
    await again.close();
  });
});
