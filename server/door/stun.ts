/**
 * A small STUN codec (RFC 5389, RFC 8489) with the TURN (RFC 8656) and ICE (RFC 8445) attributes the media door
 * and the tests' TURN client need. Buffers in, Buffers out: the checks the media door makes on every datagram
 * (`isStun`, `isBindingRequest`, `fixZeroTiebreaker` when there is nothing to fix) walk the bytes in place and
 * allocate nothing; parsing into objects is for the rare paths.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { crc32 } from 'node:zlib';

/** The fixed value in bytes 4-7 of every RFC 5389 message: tells STUN from RTP, DTLS and the like. */
export const MAGIC_COOKIE = 0x2112a442;

/** The bytes of the header: type, length, magic cookie, transaction id. */
export const HEADER_LENGTH = 20;

const FINGERPRINT_XOR = 0x5354554e;

/** Methods: STUN's Binding and TURN's (RFC 8656 §17). */
export const StunMethod = {
  Binding: 0x001,
  Allocate: 0x003,
  Refresh: 0x004,
  Send: 0x006,
  Data: 0x007,
  CreatePermission: 0x008,
  ChannelBind: 0x009,
} as const;

/** Attribute types of STUN, TURN and ICE that this codec's users read or write. */
export const AttributeType = {
  MappedAddress: 0x0001,
  Username: 0x0006,
  MessageIntegrity: 0x0008,
  ErrorCode: 0x0009,
  UnknownAttributes: 0x000a,
  ChannelNumber: 0x000c,
  Lifetime: 0x000d,
  XorPeerAddress: 0x0012,
  Data: 0x0013,
  Realm: 0x0014,
  Nonce: 0x0015,
  XorRelayedAddress: 0x0016,
  RequestedTransport: 0x0019,
  MessageIntegritySha256: 0x001c,
  XorMappedAddress: 0x0020,
  Priority: 0x0024,
  UseCandidate: 0x0025,
  Software: 0x8022,
  Fingerprint: 0x8028,
  IceControlled: 0x8029,
  IceControlling: 0x802a,
} as const;

/** The four classes a message type carries next to its method. */
export type StunClass = 'request' | 'indication' | 'success' | 'error';

const CLASS_BITS: Record<StunClass, number> = { request: 0, indication: 1, success: 2, error: 3 };
const CLASSES: readonly StunClass[] = ['request', 'indication', 'success', 'error'];

/** One attribute as it stands in a message: its value without padding. */
export interface StunAttribute {
  type: number;
  /** A view into the message's bytes, not a copy. */
  value: Buffer;
  /** Where the attribute's header starts in the message. */
  offset: number;
}

/** A parsed message; its Buffers are views into the datagram it was parsed from. */
export interface StunMessage {
  method: number;
  cls: StunClass;
  /** The 16-bit message type (method and class interleaved). */
  type: number;
  /** The 12 bytes after the magic cookie. */
  transactionId: Buffer;
  /** Every attribute in order, repeats included. */
  attributes: StunAttribute[];
  raw: Buffer;
}

/** What `encodeStun` writes; the value of each attribute without padding. */
export interface StunMessageSpec {
  method: number;
  cls: StunClass;
  /** 12 bytes; a fresh random one when left out. */
  transactionId?: Buffer;
  attributes?: readonly { type: number; value: Buffer }[];
}

/** A transport address; `host` is an IPv4 or IPv6 literal. */
export interface StunAddress {
  host: string;
  port: number;
}

/** The 16-bit message type of a method and class (RFC 5389 §6: the class bits sit between method bits). */
export function messageType(method: number, cls: StunClass): number {
  const c = CLASS_BITS[cls];
  return (
    (method & 0x000f) | ((method & 0x0070) << 1) | ((method & 0x0f80) << 2) | ((c & 1) << 4) | ((c & 2) << 7)
  );
}

/** The method and class of a 16-bit message type. */
export function splitMessageType(type: number): { method: number; cls: StunClass } {
  const method = (type & 0x000f) | ((type & 0x00e0) >> 1) | ((type & 0x3e00) >> 2);
  const cls = CLASSES[((type >> 4) & 1) | ((type >> 7) & 2)] as StunClass;
  return { method, cls };
}

/**
 * Whether the datagram has the shape of a STUN message: first two bits 0, the magic cookie, and a length field
 * that is a multiple of 4 and accounts for every byte after the header. Allocates nothing; the attributes are
 * not walked (`parseStun` does that).
 */
export function isStun(buf: Buffer): boolean {
  if (buf.length < HEADER_LENGTH || (buf[0] as number) & 0xc0) return false;
  if (buf.readUInt32BE(4) !== MAGIC_COOKIE) return false;
  const length = buf.readUInt16BE(2);
  return length % 4 === 0 && length === buf.length - HEADER_LENGTH;
}

/** Whether the datagram is a STUN Binding request (type 0x0001), the ICE connectivity check. Allocates nothing. */
export function isBindingRequest(buf: Buffer): boolean {
  return isStun(buf) && buf[0] === 0x00 && buf[1] === 0x01;
}

/**
 * Where the attribute after the one at `offset` starts, or -1 when the one at `offset` runs past the message.
 * Values are padded to 4 bytes (RFC 5389 §15), with whatever bytes the sender chose.
 */
function nextAttribute(buf: Buffer, offset: number): number {
  if (offset + 4 > buf.length) return -1;
  const next = offset + 4 + ((buf.readUInt16BE(offset + 2) + 3) & ~3);
  return next > buf.length ? -1 : next;
}

/**
 * The offset of the first attribute of `type` in a message that `isStun` accepted, or -1 when there is none or
 * the attributes before it are malformed. Allocates nothing.
 */
export function findAttribute(buf: Buffer, type: number): number {
  for (let offset = HEADER_LENGTH; offset < buf.length;) {
    const next = nextAttribute(buf, offset);
    if (next < 0) return -1;
    if (buf.readUInt16BE(offset) === type) return offset;
    offset = next;
  }
  return -1;
}

/** A message's parts, or undefined when the datagram is not a well-formed STUN message. */
export function parseStun(buf: Buffer): StunMessage | undefined {
  if (!isStun(buf)) return undefined;
  const attributes: StunAttribute[] = [];
  for (let offset = HEADER_LENGTH; offset < buf.length;) {
    const next = nextAttribute(buf, offset);
    if (next < 0) return undefined;
    const length = buf.readUInt16BE(offset + 2);
    attributes.push({
      type: buf.readUInt16BE(offset),
      value: buf.subarray(offset + 4, offset + 4 + length),
      offset,
    });
    offset = next;
  }
  const type = buf.readUInt16BE(0);
  return { type, ...splitMessageType(type), transactionId: buf.subarray(8, 20), attributes, raw: buf };
}

/** The value of the first attribute of `type`, if the message has one. */
export function getAttribute(message: StunMessage, type: number): Buffer | undefined {
  return message.attributes.find((attribute) => attribute.type === type)?.value;
}

/** A fresh random 96-bit transaction id. */
export function newTransactionId(): Buffer {
  return randomBytes(12);
}

/**
 * The bytes of a message. With `integrityKey`, a MESSAGE-INTEGRITY follows the attributes; with `fingerprint`,
 * a FINGERPRINT ends the message. Padding is zeroes.
 */
export function encodeStun(
  spec: StunMessageSpec,
  options: { integrityKey?: Buffer; fingerprint?: boolean } = {},
): Buffer {
  const attributes = spec.attributes ?? [];
  let length = 0;
  for (const attribute of attributes) length += 4 + ((attribute.value.length + 3) & ~3);
  const integrityAt = HEADER_LENGTH + length;
  if (options.integrityKey) length += 24;
  const fingerprintAt = HEADER_LENGTH + length;
  if (options.fingerprint) length += 8;

  const buf = Buffer.alloc(HEADER_LENGTH + length);
  buf.writeUInt16BE(messageType(spec.method, spec.cls), 0);
  buf.writeUInt16BE(length, 2);
  buf.writeUInt32BE(MAGIC_COOKIE, 4);
  const transactionId = spec.transactionId ?? newTransactionId();
  if (transactionId.length !== 12) throw new RangeError('A STUN transaction id is 12 bytes.');
  transactionId.copy(buf, 8);
  let offset = HEADER_LENGTH;
  for (const attribute of attributes) {
    if (attribute.value.length > 0xffff)
      throw new RangeError('A STUN attribute value is at most 65535 bytes.');
    buf.writeUInt16BE(attribute.type, offset);
    buf.writeUInt16BE(attribute.value.length, offset + 2);
    attribute.value.copy(buf, offset + 4);
    offset += 4 + ((attribute.value.length + 3) & ~3);
  }
  if (options.integrityKey) {
    buf.writeUInt16BE(AttributeType.MessageIntegrity, integrityAt);
    buf.writeUInt16BE(20, integrityAt + 2);
    messageIntegrity(buf, integrityAt, options.integrityKey).copy(buf, integrityAt + 4);
  }
  if (options.fingerprint) {
    buf.writeUInt16BE(AttributeType.Fingerprint, fingerprintAt);
    buf.writeUInt16BE(4, fingerprintAt + 2);
    buf.writeUInt32BE(fingerprint(buf, fingerprintAt), fingerprintAt + 4);
  }
  return buf;
}

/**
 * The first four bytes of the header as they stand when an attribute of `valueLength` bytes at `offset` is the
 * last one: MESSAGE-INTEGRITY and FINGERPRINT are computed as if nothing followed them (RFC 5389 §15.4, §15.5).
 */
function headWithLength(buf: Buffer, offset: number, valueLength: number): Buffer {
  const head = Buffer.allocUnsafe(4);
  head.writeUInt16BE(buf.readUInt16BE(0), 0);
  head.writeUInt16BE(offset - HEADER_LENGTH + 4 + valueLength, 2);
  return head;
}

/**
 * The HMAC-SHA1 that belongs in a MESSAGE-INTEGRITY attribute at `offset` (RFC 5389 §15.4): over the message up
 * to that attribute, with the length field counting the attribute as the last one. `key` is the ICE password as
 * UTF-8 for short-term credentials, `longTermKey(...)` for long-term ones.
 */
export function messageIntegrity(buf: Buffer, offset: number, key: Buffer): Buffer {
  return createHmac('sha1', key)
    .update(headWithLength(buf, offset, 20))
    .update(buf.subarray(4, offset))
    .digest();
}

/** RFC 8489 §14.6: HMAC-SHA256 the same way, truncated to the attribute's length (16 to 32 bytes). */
function messageIntegritySha256(buf: Buffer, offset: number, length: number, key: Buffer): Buffer {
  return createHmac('sha256', key)
    .update(headWithLength(buf, offset, length))
    .update(buf.subarray(4, offset))
    .digest()
    .subarray(0, length);
}

/**
 * Whether the message carries a MESSAGE-INTEGRITY that matches `key`. False for a message without one, or that
 * is not STUN. Compared in constant time.
 */
export function verifyMessageIntegrity(buf: Buffer, key: Buffer): boolean {
  if (!isStun(buf)) return false;
  const offset = findAttribute(buf, AttributeType.MessageIntegrity);
  if (offset < 0 || buf.readUInt16BE(offset + 2) !== 20) return false;
  return timingSafeEqual(messageIntegrity(buf, offset, key), buf.subarray(offset + 4, offset + 24));
}

/** The value of a FINGERPRINT attribute at `offset` (RFC 5389 §15.5): CRC-32 of what precedes it, XOR 0x5354554e. */
export function fingerprint(buf: Buffer, offset: number): number {
  const crc = crc32(buf.subarray(4, offset), crc32(headWithLength(buf, offset, 4)));
  return (crc ^ FINGERPRINT_XOR) >>> 0;
}

/** Whether the message ends with a FINGERPRINT attribute that matches its bytes. */
export function verifyFingerprint(buf: Buffer): boolean {
  if (!isStun(buf) || buf.length < HEADER_LENGTH + 8) return false;
  const offset = buf.length - 8;
  if (buf.readUInt16BE(offset) !== AttributeType.Fingerprint || buf.readUInt16BE(offset + 2) !== 4)
    return false;
  // The attribute must also be where the walk of the attributes lands, not bytes inside another's value.
  if (findAttribute(buf, AttributeType.Fingerprint) !== offset) return false;
  return buf.readUInt32BE(offset + 4) === fingerprint(buf, offset);
}

/** The long-term credential key of RFC 5389 §15.4: MD5(username ":" realm ":" password). */
export function longTermKey(username: string, realm: string, password: string): Buffer {
  return createHash('md5').update(`${username}:${realm}:${password}`, 'utf8').digest();
}

/** The USERNAME of a message as UTF-8, if it has one. */
export function readUsername(message: StunMessage): string | undefined {
  return getAttribute(message, AttributeType.Username)?.toString('utf8');
}

/**
 * The first part of the USERNAME of an ICE check (`<ufrag of the receiver>:<ufrag of the sender>`, RFC 8445
 * §7.2.2): whose check it is. Undefined when the datagram is not STUN or has no USERNAME.
 */
export function receiverUfrag(buf: Buffer): string | undefined {
  if (!isStun(buf)) return undefined;
  const offset = findAttribute(buf, AttributeType.Username);
  if (offset < 0) return undefined;
  const name = buf.toString('utf8', offset + 4, offset + 4 + buf.readUInt16BE(offset + 2));
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(0, colon);
}

/** A UTF-8 text attribute (USERNAME, REALM, NONCE, SOFTWARE) as bytes. */
export function textAttribute(type: number, text: string): { type: number; value: Buffer } {
  return { type, value: Buffer.from(text, 'utf8') };
}

function ipv6Bytes(host: string): Buffer | undefined {
  if (!isIPv6(host)) return undefined;
  let text = host;
  const groups: number[] = [];
  // A trailing dotted quad (::ffff:192.0.2.1) stands for the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (quad?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = quad[1].split('.').map(Number);
    tail = [(a << 8) | b, (c << 8) | d];
    text = text.slice(0, -quad[1].length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [left = '', right] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const head = parse(left);
  const rest = right === undefined ? [] : parse(right);
  const missing = 8 - head.length - rest.length - tail.length;
  groups.push(...head, ...Array<number>(right === undefined ? 0 : missing).fill(0), ...rest, ...tail);
  if (groups.length !== 8) return undefined;
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}

/** RFC 5952 text: lower case, no leading zeroes, the longest run of two or more zero groups as "::". */
function ipv6Text(bytes: Buffer): string {
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/**
 * The value of an XOR-MAPPED-ADDRESS, XOR-PEER-ADDRESS or XOR-RELAYED-ADDRESS (RFC 5389 §15.2): the port XOR the
 * cookie's top half, an IPv4 address XOR the cookie, an IPv6 one XOR the cookie and the transaction id.
 */
export function encodeXorAddress(address: StunAddress, transactionId: Buffer): Buffer {
  const port = (address.port ^ (MAGIC_COOKIE >>> 16)) & 0xffff;
  if (isIPv4(address.host)) {
    const value = Buffer.alloc(8);
    value.writeUInt8(0x01, 1);
    value.writeUInt16BE(port, 2);
    const [a = 0, b = 0, c = 0, d = 0] = address.host.split('.').map(Number);
    value.writeUInt32BE((((a << 24) | (b << 16) | (c << 8) | d) ^ MAGIC_COOKIE) >>> 0, 4);
    return value;
  }
  const bytes = ipv6Bytes(address.host);
  if (!bytes) throw new TypeError(`${address.host} is not an IP address.`);
  const value = Buffer.alloc(20);
  value.writeUInt8(0x02, 1);
  value.writeUInt16BE(port, 2);
  const mask = Buffer.concat([Buffer.from([0x21, 0x12, 0xa4, 0x42]), transactionId]);
  for (let i = 0; i < 16; i += 1) value[4 + i] = (bytes[i] as number) ^ (mask[i] as number);
  return value;
}

/** The address in an XOR-…-ADDRESS value, or undefined when the value is malformed. */
export function decodeXorAddress(value: Buffer, transactionId: Buffer): StunAddress | undefined {
  if (value.length < 4) return undefined;
  const port = (value.readUInt16BE(2) ^ (MAGIC_COOKIE >>> 16)) & 0xffff;
  const family = value[1];
  if (family === 0x01 && value.length === 8) {
    const ip = (value.readUInt32BE(4) ^ MAGIC_COOKIE) >>> 0;
    return { host: [ip >>> 24, (ip >>> 16) & 0xff, (ip >>> 8) & 0xff, ip & 0xff].join('.'), port };
  }
  if (family === 0x02 && value.length === 20 && transactionId.length === 12) {
    const mask = Buffer.concat([Buffer.from([0x21, 0x12, 0xa4, 0x42]), transactionId]);
    const bytes = Buffer.alloc(16);
    for (let i = 0; i < 16; i += 1) bytes[i] = (value[4 + i] as number) ^ (mask[i] as number);
    return { host: ipv6Text(bytes), port };
  }
  return undefined;
}

/** An ERROR-CODE value (RFC 5389 §15.6): the class in hundreds, the number, a UTF-8 reason. */
export function encodeErrorCode(code: number, reason: string): Buffer {
  const text = Buffer.from(reason, 'utf8');
  const value = Buffer.alloc(4 + text.length);
  value.writeUInt8(Math.floor(code / 100) & 0x07, 2);
  value.writeUInt8(code % 100, 3);
  text.copy(value, 4);
  return value;
}

/** The code (300-699) and reason of an ERROR-CODE value, or undefined when it is malformed. */
export function decodeErrorCode(value: Buffer): { code: number; reason: string } | undefined {
  if (value.length < 4) return undefined;
  const code = ((value[2] as number) & 0x07) * 100 + (value[3] as number);
  return { code, reason: value.subarray(4).toString('utf8') };
}

const ONE = Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]);

function isZero(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (buf[i] !== 0) return false;
  return true;
}

/**
 * Works around Chromium's ICE checks over TURN/TCP, whose ICE-CONTROLLING tiebreaker is 0, which libjuice answers
 * with 400 (libjuice issue 355): a Binding request whose ICE-CONTROLLING or ICE-CONTROLLED value is all zeroes
 * gets `tiebreaker` (8 bytes, not zero; 1 by default) instead, with MESSAGE-INTEGRITY recomputed with the
 * password of the application's ufrag (the first part of USERNAME) and FINGERPRINT recomputed when present.
 *
 * Returns `packet` itself, untouched and without allocating, when there is nothing to fix; also when the
 * ufrag is unknown to `passwordOf` or the message does not verify with its password, so that a request nobody
 * could sign is never signed here. A fixed message is a new Buffer.
 */
export function fixZeroTiebreaker(
  packet: Buffer,
  passwordOf: (appUfrag: string) => string | undefined,
  tiebreaker: Buffer = ONE,
): Buffer {
  if (!isBindingRequest(packet)) return packet;
  let role = -1;
  let username = -1;
  let integrity = -1;
  let fingerprintAt = -1;
  let sha256 = -1;
  for (let offset = HEADER_LENGTH; offset < packet.length;) {
    const next = nextAttribute(packet, offset);
    if (next < 0) return packet;
    const type = packet.readUInt16BE(offset);
    const length = packet.readUInt16BE(offset + 2);
    if (integrity < 0) {
      // Receivers ignore what follows MESSAGE-INTEGRITY but FINGERPRINT (RFC 5389 §15.4).
      if (
        (type === AttributeType.IceControlling || type === AttributeType.IceControlled) &&
        length === 8 &&
        role < 0
      ) {
        role = offset;
      } else if (type === AttributeType.Username && username < 0) {
        username = offset;
      } else if (type === AttributeType.MessageIntegrity && length === 20) {
        integrity = offset;
      }
    } else if (type === AttributeType.MessageIntegritySha256 && sha256 < 0) {
      sha256 = offset;
    } else if (type === AttributeType.Fingerprint && length === 4 && next === packet.length) {
      fingerprintAt = offset;
    }
    offset = next;
  }
  if (role < 0 || !isZero(packet, role + 4, role + 12)) return packet;
  if (username < 0 || integrity < 0) return packet;
  if (tiebreaker.length !== 8 || isZero(tiebreaker, 0, 8))
    throw new RangeError('A tiebreaker is 8 bytes, not 0.');

  const ufrag = receiverUfrag(packet);
  const password = ufrag === undefined ? undefined : passwordOf(ufrag);
  if (password === undefined) return packet;
  const key = Buffer.from(password, 'utf8');
  if (!verifyMessageIntegrity(packet, key)) return packet;
  if (fingerprintAt >= 0 && !verifyFingerprint(packet)) return packet;

  const fixed = Buffer.from(packet);
  tiebreaker.copy(fixed, role + 4);
  messageIntegrity(fixed, integrity, key).copy(fixed, integrity + 4);
  if (sha256 >= 0) {
    const length = fixed.readUInt16BE(sha256 + 2);
    if (length >= 16 && length <= 32)
      messageIntegritySha256(fixed, sha256, length, key).copy(fixed, sha256 + 4);
  }
  if (fingerprintAt >= 0) fixed.writeUInt32BE(fingerprint(fixed, fingerprintAt), fingerprintAt + 4);
  return fixed;
}
