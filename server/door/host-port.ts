/** How the door writes an address: `host:port`, or a host in a URL, with brackets around an IPv6 literal. */

/** The host as it stands in a URL or before a port: an IPv6 literal in brackets (brackets already there kept). */
export function bracketed(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare.includes(':') ? `[${bare}]` : bare;
}

/** `host:port`, an IPv6 literal bracketed. */
export function hostPort(host: string, port: number): string {
  return `${bracketed(host)}:${port}`;
}
