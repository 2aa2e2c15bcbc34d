/**
 * A minimal TURN client over UDP (RFC 8656, formerly RFC 5766) for tests against a real relay (coturn): one
 * allocation with the long-term credential mechanism, permissions, Send and Data indications. No channels, no
 * TCP, no refreshes: a test's allocation lives for the relay's default lifetime (10 minutes) at most.
 */
import { createSocket, type Socket } from 'node:dgram';
import {
  AttributeType,
  decodeErrorCode,
  decodeXorAddress,
  encodeStun,
  encodeXorAddress,
  getAttribute,
  longTermKey,
  newTransactionId,
  parseStun,
  StunMethod,
  textAttribute,
  verifyMessageIntegrity,
  type StunAddress,
  type StunMessage,
} from '../server/door/stun.ts';

/** A transport address: an IP literal and a port. */
export type TurnAddress = StunAddress;

export interface TurnClientOptions {
  server: TurnAddress;
  username: string;
  password: string;
  /** The local address to bind (any by default). */
  localHost?: string;
  /** How long a request may go unanswered, retransmissions included (10 s by default). */
  timeoutMs?: number;
  /** The first retransmission timeout, doubled at each one (RFC 8489 §6.2.1; 500 ms by default). */
  rtoMs?: number;
}

/** A request of the relay answered with an error response: its ERROR-CODE. */
export class TurnError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    what: string,
  ) {
    super(`${what} was refused: ${code} ${reason}`);
    this.name = 'TurnError';
  }
}

/** 401: the credential is wrong or expired (a TURN REST username carries its expiry). */
export class TurnUnauthorizedError extends TurnError {
  constructor(reason: string, what: string) {
    super(401, reason, what);
    this.name = 'TurnUnauthorizedError';
  }
}

/** 403: the relay will not do it (a peer address it denies, for instance). */
export class TurnForbiddenError extends TurnError {
  constructor(reason: string, what: string) {
    super(403, reason, what);
    this.name = 'TurnForbiddenError';
  }
}

/** 438: the nonce went stale and a new one did not help. */
export class TurnStaleNonceError extends TurnError {
  constructor(reason: string, what: string) {
    super(438, reason, what);
    this.name = 'TurnStaleNonceError';
  }
}

/** 486: the user has as many allocations as the relay allows it. */
export class TurnQuotaError extends TurnError {
  constructor(reason: string, what: string) {
    super(486, reason, what);
    this.name = 'TurnQuotaError';
  }
}

/** The error of a refused request, typed by its code when it has a class of its own. */
export function turnError(code: number, reason: string, what: string): TurnError {
  switch (code) {
    case 401:
      return new TurnUnauthorizedError(reason, what);
    case 403:
      return new TurnForbiddenError(reason, what);
    case 438:
      return new TurnStaleNonceError(reason, what);
    case 486:
      return new TurnQuotaError(reason, what);
    default:
      return new TurnError(code, reason, what);
  }
}

interface Pending {
  resolve(message: StunMessage): void;
  reject(error: Error): void;
  stop(): void;
}

type Outcome = { ok: StunMessage } | { code: number; reason: string };

/** A client socket and its one allocation on the relay. */
export class TurnClient {
  private realm: string | undefined;
  private nonce: string | undefined;
  private key: Buffer | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<(data: Buffer, peer: TurnAddress) => void>();
  private allocated = false;
  private closed = false;

  private constructor(
    private readonly socket: Socket,
    private readonly options: TurnClientOptions,
    /** The client's own address. */
    readonly local: TurnAddress,
  ) {
    socket.on('message', (packet, from) => {
      if (from.address === options.server.host && from.port === options.server.port) this.received(packet);
    });
    // Lost datagrams are retransmitted; an ICMP error (the relay gone) ends in a timeout.
    socket.on('error', () => undefined);
  }

  /** Binds a UDP socket to talk to `server`; nothing is sent yet. */
  static async connect(options: TurnClientOptions): Promise<TurnClient> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, options.localHost ?? '0.0.0.0', () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const { address, port } = socket.address();
    return new TurnClient(socket, options, { host: address, port });
  }

  /**
   * Asks for a UDP relay address (REQUESTED-TRANSPORT 17), answering the relay's 401 with the long-term
   * credential (REALM and NONCE from the 401, key MD5(username:realm:password)). Rejects with a `TurnError`.
   */
  async allocate(): Promise<{ relayed: TurnAddress; mapped?: TurnAddress; lifetimeS?: number }> {
    const outcome = await this.authenticated(StunMethod.Allocate, [
      { type: AttributeType.RequestedTransport, value: Buffer.from([17, 0, 0, 0]) },
    ]);
    if (!('ok' in outcome)) throw turnError(outcome.code, outcome.reason, 'Allocate');
    const response = outcome.ok;
    const relayedValue = getAttribute(response, AttributeType.XorRelayedAddress);
    const relayed = relayedValue && decodeXorAddress(relayedValue, response.transactionId);
    if (!relayed) throw new Error('The Allocate response has no XOR-RELAYED-ADDRESS');
    this.allocated = true;
    const mappedValue = getAttribute(response, AttributeType.XorMappedAddress);
    const mapped = mappedValue && decodeXorAddress(mappedValue, response.transactionId);
    const lifetime = getAttribute(response, AttributeType.Lifetime);
    return {
      relayed,
      ...(mapped ? { mapped } : {}),
      ...(lifetime?.length === 4 ? { lifetimeS: lifetime.readUInt32BE(0) } : {}),
    };
  }

  /** Lets `peerHost` send to the relayed address (and this client send to it): 'ok', or the relay's error. */
  async createPermission(peerHost: string): Promise<'ok' | { error: number; reason: string }> {
    const outcome = await this.authenticated(StunMethod.CreatePermission, [
      { type: AttributeType.XorPeerAddress, value: Buffer.alloc(0), peer: { host: peerHost, port: 0 } },
    ]);
    return 'ok' in outcome ? 'ok' : { error: outcome.code, reason: outcome.reason };
  }

  /** Sends `data` to `peer` from the relayed address (a Send indication: unanswered, unauthenticated). */
  send(peer: TurnAddress, data: Buffer): void {
    const transactionId = newTransactionId();
    const packet = encodeStun(
      {
        method: StunMethod.Send,
        cls: 'indication',
        transactionId,
        attributes: [
          { type: AttributeType.XorPeerAddress, value: encodeXorAddress(peer, transactionId) },
          { type: AttributeType.Data, value: data },
        ],
      },
      { fingerprint: true },
    );
    this.socket.send(packet, this.options.server.port, this.options.server.host);
  }

  /** Calls `listener` with what peers send to the relayed address (Data indications); returns its removal. */
  onData(listener: (data: Buffer, peer: TurnAddress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Releases the allocation (a Refresh with LIFETIME 0, not waited on long) and closes the socket. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.allocated) {
      this.allocated = false;
      await this.authenticated(
        StunMethod.Refresh,
        [{ type: AttributeType.Lifetime, value: Buffer.alloc(4) }],
        2_000,
      )
        // The relay forgets an allocation by itself at the end of its lifetime.
        .catch(() => undefined);
    }
    this.closed = true;
    for (const pending of this.pending.values()) pending.reject(new Error('The TURN client was closed'));
    this.pending.clear();
    this.listeners.clear();
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private received(packet: Buffer): void {
    const message = parseStun(packet);
    if (!message) return;
    if (message.method === StunMethod.Data && message.cls === 'indication') {
      const peerValue = getAttribute(message, AttributeType.XorPeerAddress);
      const peer = peerValue && decodeXorAddress(peerValue, message.transactionId);
      const data = getAttribute(message, AttributeType.Data);
      if (peer && data) for (const listener of this.listeners) listener(Buffer.from(data), peer);
      return;
    }
    if (message.cls !== 'success' && message.cls !== 'error') return;
    const id = message.transactionId.toString('hex');
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.stop();
    // A response signed with another key is not the relay's answer to this client's credential.
    if (
      this.key &&
      getAttribute(message, AttributeType.MessageIntegrity) &&
      !verifyMessageIntegrity(packet, this.key)
    )
      pending.reject(new Error('The relay answered with a MESSAGE-INTEGRITY that does not verify'));
    else pending.resolve(message);
  }

  /** One request, retransmitted until answered (success or error) or until the time is up. */
  private transact(packet: Buffer, transactionId: Buffer, timeoutMs: number): Promise<StunMessage> {
    if (this.closed) return Promise.reject(new Error('The TURN client is closed'));
    const id = transactionId.toString('hex');
    return new Promise<StunMessage>((resolve, reject) => {
      let rto = this.options.rtoMs ?? 500;
      let retransmit: NodeJS.Timeout;
      const sendOnce = () => {
        this.socket.send(packet, this.options.server.port, this.options.server.host);
        retransmit = setTimeout(sendOnce, rto);
        rto *= 2;
      };
      const deadline = setTimeout(() => {
        this.pending.delete(id);
        clearTimeout(retransmit);
        reject(
          new Error(`The relay at ${this.options.server.host}:${this.options.server.port} did not answer`),
        );
      }, timeoutMs);
      this.pending.set(id, {
        resolve,
        reject,
        stop: () => {
          clearTimeout(deadline);
          clearTimeout(retransmit);
        },
      });
      sendOnce();
    });
  }

  /**
   * A request with the long-term credential: first as it is when the relay's realm and nonce are not known yet,
   * then again with USERNAME, REALM, NONCE and MESSAGE-INTEGRITY after a 401, and with the new nonce after a 438.
   */
  private async authenticated(
    method: number,
    attributes: { type: number; value: Buffer; peer?: TurnAddress }[],
    timeoutMs = this.options.timeoutMs ?? 10_000,
  ): Promise<Outcome> {
    let last: { code: number; reason: string } = { code: 0, reason: '' };
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const transactionId = newTransactionId();
      const values = attributes.map(({ type, value, peer }) => ({
        type,
        value: peer ? encodeXorAddress(peer, transactionId) : value,
      }));
      const signed = this.key !== undefined && this.realm !== undefined && this.nonce !== undefined;
      if (signed) {
        values.push(
          textAttribute(AttributeType.Username, this.options.username),
          textAttribute(AttributeType.Realm, this.realm as string),
          textAttribute(AttributeType.Nonce, this.nonce as string),
        );
      }
      const packet = encodeStun(
        { method, cls: 'request', transactionId, attributes: values },
        { ...(signed ? { integrityKey: this.key } : {}), fingerprint: true },
      );
      const response = await this.transact(packet, transactionId, timeoutMs);
      if (response.cls === 'success') return { ok: response };
      const error = decodeErrorCode(getAttribute(response, AttributeType.ErrorCode) ?? Buffer.alloc(0)) ?? {
        code: 0,
        reason: 'no ERROR-CODE',
      };
      last = error;
      const realm = getAttribute(response, AttributeType.Realm)?.toString('utf8');
      const nonce = getAttribute(response, AttributeType.Nonce)?.toString('utf8');
      // A 401 to a signed request is the credential refused; to an unsigned one, the challenge.
      const challenge = (error.code === 401 && !signed) || error.code === 438;
      if (!challenge || !nonce || !(realm ?? this.realm)) return error;
      this.nonce = nonce;
      if (realm) this.realm = realm;
      this.key = longTermKey(this.options.username, this.realm as string, this.options.password);
    }
    return last;
  }
}
