/** The TURN URLs of the relays the service hands out (`turn:host:3478?transport=udp`, RFC 7065). */

/** One TURN URL, read. */
export interface TurnUrl {
  scheme: 'turn' | 'turns';
  /** As written, an IPv6 address in brackets. */
  host: string;
  port: number;
  /** How the browser reaches the relay: `turns:` is TLS over TCP. */
  transport: 'udp' | 'tcp';
}

/** A TURN URL read, or undefined for anything else (a STUN URL, a typo). */
export function parseTurnUrl(url: string): TurnUrl | undefined {
  const match = /^(turns?):(?:\/\/)?(\[[^\]]+\]|[^:?/]+)(?::(\d+))?(?:\?(.*))?$/i.exec(url.trim());
  if (!match) return undefined;
  const scheme = match[1]?.toLowerCase() === 'turns' ? 'turns' : 'turn';
  const transport = new URLSearchParams(match[4] ?? '').get('transport')?.toLowerCase();
  return {
    scheme,
    host: match[2] ?? '',
    port: match[3] ? Number(match[3]) : scheme === 'turns' ? 5349 : 3478,
    transport: transport === 'tcp' || (transport === undefined && scheme === 'turns') ? 'tcp' : 'udp',
  };
}

/** Every TURN URL of a list of ICE servers, in order. */
export function turnUrls(iceServers: readonly RTCIceServer[]): TurnUrl[] {
  return iceServers
    .flatMap((server) => (Array.isArray(server.urls) ? server.urls : [server.urls]))
    .map(parseTurnUrl)
    .filter((url): url is TurnUrl => url !== undefined);
}
