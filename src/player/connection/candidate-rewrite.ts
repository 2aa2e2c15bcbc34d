/**
 * The application advertises one host candidate on its media port; behind port forwarding or a load balancer
 * the client must dial the route's host and source port instead (CONTRACT 12).
 */

/** Where media must be sent: the route's host and media `source_port`. */
export interface CandidateTarget {
  host: string;
  port: number;
}

// candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> ...
const CANDIDATE = /^(a=candidate:\S+ \d+ \S+ \d+ )(\S+) (\d+)( typ .*)$/;

/**
 * Rewrites the address and port of every host candidate of an SDP whose address or port differ from the target.
 * Other lines are kept byte for byte, including the line endings.
 */
export function rewriteCandidates(sdp: string, target: CandidateTarget): string {
  const address = target.host.replace(/^\[|\]$/g, '');
  return sdp
    .split('\n')
    .map((line) => {
      const hasCr = line.endsWith('\r');
      const body = hasCr ? line.slice(0, -1) : line;
      const match = CANDIDATE.exec(body);
      if (!match || !/ typ host( |$)/.test(body)) return line;
      const [, head, oldAddress, oldPort, tail] = match;
      if (oldAddress === address && Number(oldPort) === target.port) return line;
      return `${head}${address} ${target.port}${tail}${hasCr ? '\r' : ''}`;
    })
    .join('\n');
}
