import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import {
  AttributeType,
  decodeErrorCode,
  decodeXorAddress,
  encodeErrorCode,
  encodeStun,
  encodeXorAddress,
  findAttribute,
  fixZeroTiebreaker,
  getAttribute,
  isBindingRequest,
  isStun,
  longTermKey,
  messageType,
  parseStun,
  readUsername,
  receiverUfrag,
  splitMessageType,
  StunMethod,
  textAttribute,
  verifyFingerprint,
  verifyMessageIntegrity,
} from './stun.ts';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** RFC 5769 §2.1: a Binding request with short-term credentials ("evtj:h6vY"); the USERNAME is padded with spaces. */
const sampleRequest = hex(`
  00 01 00 58 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
  80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74
  00 24 00 04 6e 00 01 ff
  80 29 00 08 93 2f f9 b1 51 26 3b 36
  00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20
  00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2
  80 28 00 04 e5 7a 3b cf`);
const samplePassword = 'VOkJxbRl1RmTxUk/WvJxBt';

/** RFC 5769 §2.2: the success response, mapped address 192.0.2.1:32853. */
const sampleIpv4Response = hex(`
  01 01 00 3c 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
  80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
  00 20 00 08 00 01 a1 47 e1 12 a6 43
  00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7
  80 28 00 04 c0 7d 4c 96`);

/** RFC 5769 §2.3: the same with the mapped address [2001:db8:1234:5678:11:2233:4455:6677]:32853. */
const sampleIpv6Response = hex(`
  01 01 00 48 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
  80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20
  00 20 00 14 00 02 a1 47 01 13 a9 fa a5 d3 f1 79 bc 25 f4 b5 be d2 b9 d9
  00 08 00 14 a3 82 95 4e 4b e6 7b f1 17 84 c9 7c 82 92 c2 75 bf e3 ed 41
  80 28 00 04 c8 fb 0b 4c`);

/** RFC 5769 §2.4: a request with long-term credentials (user "マトリックス", realm "example.org"). */
const sampleLongTermRequest = hex(`
  00 01 00 60 21 12 a4 42 78 ad 34 33 c6 ad 72 c0 29 da 41 2e
  00 06 00 12 e3 83 9e e3 83 88 e3 83 aa e3 83 83 e3 82 af e3 82 b9 00 00
  00 15 00 1c 66 2f 2f 34 39 39 6b 39 35 34 64 36 4f 4c 33 34 6f 4c 39 46 53 54 76 79 36 34 73 41
  00 14 00 0b 65 78 61 6d 70 6c 65 2e 6f 72 67 00
  00 08 00 14 f6 70 24 65 6d d6 4a 3e 02 b8 e0 71 2e 85 c9 a2 8c a8 96 66`);

// Independent of the codec: a bitwise CRC-32 (ISO-HDLC, as zlib's) and HMAC-SHA1 over a copy whose length field
// is patched by hand, located by the offsets a test knows, not by the codec's attribute walk.
function referenceCrc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function referenceIntegrity(message: Buffer, integrityAt: number, key: Buffer): Buffer {
  const covered = Buffer.from(message.subarray(0, integrityAt));
  covered.writeUInt16BE(integrityAt - 20 + 24, 2);
  return createHmac('sha1', key).update(covered).digest();
}

function referenceFingerprint(message: Buffer): number {
  return (referenceCrc32(message.subarray(0, message.length - 8)) ^ 0x5354554e) >>> 0;
}

/** A Binding request as Chromium sends it over TURN/TCP: ICE-CONTROLLING with a zero tiebreaker. */
function chromiumCheck(options: {
  username?: string;
  password?: string;
  role?: number;
  tiebreaker?: Buffer;
  fingerprint?: boolean;
}): Buffer {
  return encodeStun(
    {
      method: StunMethod.Binding,
      cls: 'request',
      attributes: [
        textAttribute(AttributeType.Username, options.username ?? 'appUfrag:brws'),
        { type: options.role ?? AttributeType.IceControlling, value: options.tiebreaker ?? Buffer.alloc(8) },
        { type: AttributeType.UseCandidate, value: Buffer.alloc(0) },
        { type: AttributeType.Priority, value: hex('6e0001ff') },
      ],
    },
    {
      integrityKey: Buffer.from(options.password ?? 'app-password-0123456789', 'utf8'),
      fingerprint: options.fingerprint ?? true,
    },
  );
}

describe('RFC 5769 test vectors', () => {
  it('parses the sample request and verifies it with the short-term password', () => {
    const message = parseStun(sampleRequest);
    expect(message).toBeDefined();
    if (!message) return;
    expect(message.method).toBe(StunMethod.Binding);
    expect(message.cls).toBe('request');
    expect(message.transactionId).toEqual(hex('b7e7a701bc34d686fa87dfae'));
    expect(message.attributes.map((a) => a.type)).toEqual([
      AttributeType.Software,
      AttributeType.Priority,
      AttributeType.IceControlled,
      AttributeType.Username,
      AttributeType.MessageIntegrity,
      AttributeType.Fingerprint,
    ]);
    expect(getAttribute(message, AttributeType.Software)?.toString()).toBe('STUN test client');
    expect(getAttribute(message, AttributeType.IceControlled)).toEqual(hex('932ff9b151263b36'));
    expect(readUsername(message)).toBe('evtj:h6vY');
    expect(receiverUfrag(sampleRequest)).toBe('evtj');
    expect(isBindingRequest(sampleRequest)).toBe(true);
    expect(verifyMessageIntegrity(sampleRequest, Buffer.from(samplePassword, 'utf8'))).toBe(true);
    expect(verifyMessageIntegrity(sampleRequest, Buffer.from('VOkJxbRl1RmTxUk/WvJxBT', 'utf8'))).toBe(false);
    expect(verifyFingerprint(sampleRequest)).toBe(true);
  });

  it('decodes the IPv4 response and verifies it', () => {
    const message = parseStun(sampleIpv4Response);
    if (!message) throw new Error('not parsed');
    expect(message.cls).toBe('success');
    const mapped = getAttribute(message, AttributeType.XorMappedAddress);
    if (!mapped) throw new Error('no XOR-MAPPED-ADDRESS');
    expect(decodeXorAddress(mapped, message.transactionId)).toEqual({ host: '192.0.2.1', port: 32853 });
    expect(encodeXorAddress({ host: '192.0.2.1', port: 32853 }, message.transactionId)).toEqual(mapped);
    expect(verifyMessageIntegrity(sampleIpv4Response, Buffer.from(samplePassword, 'utf8'))).toBe(true);
    expect(verifyFingerprint(sampleIpv4Response)).toBe(true);
    expect(isBindingRequest(sampleIpv4Response)).toBe(false);
  });

  it('decodes the IPv6 response and verifies it', () => {
    const message = parseStun(sampleIpv6Response);
    if (!message) throw new Error('not parsed');
    const mapped = getAttribute(message, AttributeType.XorMappedAddress);
    if (!mapped) throw new Error('no XOR-MAPPED-ADDRESS');
    const address = { host: '2001:db8:1234:5678:11:2233:4455:6677', port: 32853 };
    expect(decodeXorAddress(mapped, message.transactionId)).toEqual(address);
    expect(encodeXorAddress(address, message.transactionId)).toEqual(mapped);
    expect(verifyMessageIntegrity(sampleIpv6Response, Buffer.from(samplePassword, 'utf8'))).toBe(true);
    expect(verifyFingerprint(sampleIpv6Response)).toBe(true);
  });

  it('verifies the long-term request with MD5(username:realm:password)', () => {
    const message = parseStun(sampleLongTermRequest);
    if (!message) throw new Error('not parsed');
    expect(readUsername(message)).toBe('マトリックス');
    expect(getAttribute(message, AttributeType.Realm)?.toString()).toBe('example.org');
    expect(getAttribute(message, AttributeType.Nonce)?.toString()).toBe('f//499k954d6OL34oL9FSTvy64sA');
    // The password after SASLprep: "TheMatrIX".
    expect(
      verifyMessageIntegrity(sampleLongTermRequest, longTermKey('マトリックス', 'example.org', 'TheMatrIX')),
    ).toBe(true);
    expect(
      verifyMessageIntegrity(sampleLongTermRequest, longTermKey('マトリックス', 'example.org', 'thematrix')),
    ).toBe(false);
    expect(verifyFingerprint(sampleLongTermRequest)).toBe(false);
  });
});

describe('isStun and parseStun', () => {
  it('refuses what is not STUN', () => {
    const rtp = Buffer.from(sampleRequest);
    rtp[0] = 0x80;
    expect(isStun(rtp)).toBe(false);
    const cookie = Buffer.from(sampleRequest);
    cookie[4] = 0x22;
    expect(isStun(cookie)).toBe(false);
    expect(isStun(sampleRequest.subarray(0, 19))).toBe(false);
    expect(isStun(sampleRequest.subarray(0, sampleRequest.length - 4))).toBe(false);
    const odd = Buffer.concat([sampleRequest, Buffer.alloc(2)]);
    odd.writeUInt16BE(odd.length - 20, 2);
    expect(isStun(odd)).toBe(false);
    expect(parseStun(rtp)).toBeUndefined();
    expect(receiverUfrag(rtp)).toBeUndefined();
  });

  it('refuses an attribute that runs past the message', () => {
    const broken = Buffer.from(sampleRequest);
    broken.writeUInt16BE(0x00ff, 22);
    expect(isStun(broken)).toBe(true);
    expect(parseStun(broken)).toBeUndefined();
    expect(findAttribute(broken, AttributeType.Username)).toBe(-1);
    expect(verifyMessageIntegrity(broken, Buffer.from(samplePassword))).toBe(false);
  });

  it('interleaves method and class bits', () => {
    expect(messageType(StunMethod.Binding, 'request')).toBe(0x0001);
    expect(messageType(StunMethod.Binding, 'success')).toBe(0x0101);
    expect(messageType(StunMethod.Binding, 'error')).toBe(0x0111);
    expect(messageType(StunMethod.Allocate, 'error')).toBe(0x0113);
    expect(messageType(StunMethod.Send, 'indication')).toBe(0x0016);
    expect(messageType(StunMethod.Data, 'indication')).toBe(0x0017);
    expect(messageType(StunMethod.CreatePermission, 'success')).toBe(0x0108);
    for (const cls of ['request', 'indication', 'success', 'error'] as const) {
      for (const method of [0x001, 0x009, 0x0abc, 0x0fff]) {
        expect(splitMessageType(messageType(method, cls))).toEqual({ method, cls });
      }
    }
  });
});

describe('encodeStun', () => {
  it('writes integrity and fingerprint that an independent computation agrees with', () => {
    const key = Buffer.from('a key', 'utf8');
    const transactionId = hex('000102030405060708090a0b');
    const message = encodeStun(
      {
        method: StunMethod.Allocate,
        cls: 'request',
        transactionId,
        attributes: [textAttribute(AttributeType.Username, 'abcde'), textAttribute(AttributeType.Realm, 'r')],
      },
      { integrityKey: key, fingerprint: true },
    );
    // 20 header + USERNAME 4+8 + REALM 4+4 + MESSAGE-INTEGRITY 24 + FINGERPRINT 8.
    expect(message.length).toBe(72);
    expect(message.readUInt16BE(2)).toBe(52);
    expect(message.subarray(20 + 4 + 5, 20 + 12)).toEqual(Buffer.alloc(3));
    const integrityAt = 40;
    expect(message.readUInt16BE(integrityAt)).toBe(AttributeType.MessageIntegrity);
    expect(message.subarray(integrityAt + 4, integrityAt + 24)).toEqual(
      referenceIntegrity(message, integrityAt, key),
    );
    expect(message.readUInt32BE(message.length - 4)).toBe(referenceFingerprint(message));
    expect(verifyMessageIntegrity(message, key)).toBe(true);
    expect(verifyFingerprint(message)).toBe(true);
    expect(parseStun(message)?.transactionId).toEqual(transactionId);
  });

  it('codes ERROR-CODE and XOR addresses', () => {
    expect(encodeErrorCode(401, 'Unauthorized')).toEqual(
      Buffer.concat([hex('00000401'), Buffer.from('Unauthorized')]),
    );
    expect(decodeErrorCode(encodeErrorCode(438, 'Stale Nonce'))).toEqual({
      code: 438,
      reason: 'Stale Nonce',
    });
    expect(decodeErrorCode(hex('0000'))).toBeUndefined();
    const id = hex('b7e7a701bc34d686fa87dfae');
    for (const host of ['127.0.0.2', '255.255.255.255', '0.0.0.0', '::1', 'fe80::1:2', '2001:db8::', '::']) {
      expect(decodeXorAddress(encodeXorAddress({ host, port: 3480 }, id), id)).toEqual({ host, port: 3480 });
    }
    expect(decodeXorAddress(encodeXorAddress({ host: '::ffff:192.0.2.1', port: 1 }, id), id)).toEqual({
      host: '::ffff:c000:201',
      port: 1,
    });
    expect(() => encodeXorAddress({ host: 'example.org', port: 1 }, id)).toThrow(TypeError);
  });
});

describe('fixZeroTiebreaker', () => {
  const password = 'app-password-0123456789';
  const passwordOf = (ufrag: string) => (ufrag === 'appUfrag' ? password : undefined);

  it('gives a zero ICE-CONTROLLING a tiebreaker and signs the message again', () => {
    const check = chromiumCheck({});
    const original = Buffer.from(check);
    const tiebreaker = hex('0123456789abcdef');
    const lookups = vi.fn(passwordOf);
    const fixed = fixZeroTiebreaker(check, lookups, tiebreaker);

    expect(fixed).not.toBe(check);
    expect(check).toEqual(original);
    expect(lookups).toHaveBeenCalledWith('appUfrag');
    expect(fixed.length).toBe(check.length);
    // USERNAME 'appUfrag:brws' (13 bytes, 16 padded) comes first, then ICE-CONTROLLING.
    const roleAt = 20 + 4 + 16;
    expect(fixed.readUInt16BE(roleAt)).toBe(AttributeType.IceControlling);
    expect(fixed.subarray(roleAt + 4, roleAt + 12)).toEqual(tiebreaker);
    // Everything else is as the browser sent it.
    expect(fixed.subarray(0, roleAt + 4)).toEqual(check.subarray(0, roleAt + 4));
    const integrityAt = fixed.length - 8 - 24;
    expect(fixed.subarray(roleAt + 12, integrityAt + 4)).toEqual(
      check.subarray(roleAt + 12, integrityAt + 4),
    );

    expect(fixed.subarray(integrityAt + 4, integrityAt + 24)).toEqual(
      referenceIntegrity(fixed, integrityAt, Buffer.from(password, 'utf8')),
    );
    expect(fixed.readUInt32BE(fixed.length - 4)).toBe(referenceFingerprint(fixed));
    expect(verifyMessageIntegrity(fixed, Buffer.from(password))).toBe(true);
    expect(verifyFingerprint(fixed)).toBe(true);
  });

  it('fixes a zero ICE-CONTROLLED too, with 1 by default, and a message without FINGERPRINT', () => {
    const check = chromiumCheck({ role: AttributeType.IceControlled, fingerprint: false });
    const fixed = fixZeroTiebreaker(check, passwordOf);
    const message = parseStun(fixed);
    if (!message) throw new Error('not parsed');
    expect(getAttribute(message, AttributeType.IceControlled)).toEqual(hex('0000000000000001'));
    expect(getAttribute(message, AttributeType.Fingerprint)).toBeUndefined();
    const integrityAt = fixed.length - 24;
    expect(fixed.subarray(integrityAt + 4)).toEqual(
      referenceIntegrity(fixed, integrityAt, Buffer.from(password)),
    );
  });

  it('recomputes a MESSAGE-INTEGRITY-SHA256 that follows MESSAGE-INTEGRITY', () => {
    const key = Buffer.from(password);
    const signed = chromiumCheck({ fingerprint: false });
    // Append MESSAGE-INTEGRITY-SHA256 and FINGERPRINT by hand.
    const withSha = Buffer.concat([signed, Buffer.alloc(4 + 32 + 8)]);
    const shaAt = signed.length;
    withSha.writeUInt16BE(withSha.length - 20, 2);
    withSha.writeUInt16BE(AttributeType.MessageIntegritySha256, shaAt);
    withSha.writeUInt16BE(32, shaAt + 2);
    const shaOf = (message: Buffer) => {
      const covered = Buffer.from(message.subarray(0, shaAt));
      covered.writeUInt16BE(shaAt - 20 + 36, 2);
      return createHmac('sha256', key).update(covered).digest();
    };
    shaOf(withSha).copy(withSha, shaAt + 4);
    const fingerprintAt = shaAt + 36;
    withSha.writeUInt16BE(AttributeType.Fingerprint, fingerprintAt);
    withSha.writeUInt16BE(4, fingerprintAt + 2);
    withSha.writeUInt32BE(referenceFingerprint(withSha), fingerprintAt + 4);
    expect(verifyMessageIntegrity(withSha, key)).toBe(true);
    expect(verifyFingerprint(withSha)).toBe(true);

    const fixed = fixZeroTiebreaker(withSha, passwordOf);
    expect(fixed).not.toBe(withSha);
    expect(verifyMessageIntegrity(fixed, key)).toBe(true);
    expect(fixed.subarray(shaAt + 4, shaAt + 36)).toEqual(shaOf(fixed));
    expect(fixed.readUInt32BE(fixed.length - 4)).toBe(referenceFingerprint(fixed));
  });

  it('returns the same Buffer when there is nothing to fix or nothing it may sign', () => {
    const same = (packet: Buffer) => expect(fixZeroTiebreaker(packet, passwordOf)).toBe(packet);
    same(chromiumCheck({ tiebreaker: hex('0000000000000100') }));
    same(chromiumCheck({ username: 'otherUfrag:brws' }));
    same(chromiumCheck({ password: 'not the password' }));
    same(sampleRequest);
    same(sampleIpv4Response);
    same(hex('80e1000100000000deadbeef'));
    same(Buffer.alloc(0));
    // No MESSAGE-INTEGRITY: nothing to verify the request with.
    same(
      encodeStun({
        method: StunMethod.Binding,
        cls: 'request',
        attributes: [
          textAttribute(AttributeType.Username, 'appUfrag:brws'),
          { type: AttributeType.IceControlling, value: Buffer.alloc(8) },
        ],
      }),
    );
    // A FINGERPRINT that does not match stays not matching.
    const badFingerprint = chromiumCheck({});
    badFingerprint.writeUInt8((badFingerprint.at(-1) as number) ^ 1, badFingerprint.length - 1);
    same(badFingerprint);
    // A zero role after MESSAGE-INTEGRITY is ignored by receivers, so it is left alone too.
    const late = encodeStun(
      {
        method: StunMethod.Binding,
        cls: 'request',
        attributes: [textAttribute(AttributeType.Username, 'appUfrag:brws')],
      },
      { integrityKey: Buffer.from(password) },
    );
    const lateRole = Buffer.concat([late, hex('802a0008'), Buffer.alloc(8)]);
    lateRole.writeUInt16BE(lateRole.length - 20, 2);
    same(lateRole);
  });

  it('refuses a zero tiebreaker to write', () => {
    expect(() => fixZeroTiebreaker(chromiumCheck({}), passwordOf, Buffer.alloc(8))).toThrow(RangeError);
  });
});
