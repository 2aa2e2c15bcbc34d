import { describe, expect, it } from 'vitest';
import { fenceRelay, fenceScript, fenceTable } from './relay-fence.ts';

describe('the relay fence', () => {
  it('drops what the relay sends to the door’s address on any port but the door’s', () => {
    const script = fenceScript({
      door: { host: '127.0.0.2', port: 3480 },
      relayPorts: { first: 48000, last: 48999 },
    });
    expect(script).toContain('table ip streamgate_relay_48000 {');
    expect(script).toContain('type filter hook output priority 0; policy accept;');
    expect(script).toContain('ip daddr 127.0.0.2 udp sport 48000-48999 udp dport != 3480 drop');
    expect(fenceTable({ first: 49700 })).toBe('streamgate_relay_49700');
  });

  it('says in one sentence why it cannot be put up', async () => {
    await expect(
      fenceRelay({
        door: { host: '127.0.0.2', port: 3480 },
        relayPorts: { first: 48000, last: 48999 },
        nft: '/nonexistent/nft',
      }),
    ).rejects.toThrow(
      "The relay could not be fenced to the media door's port (nftables is not installed): it can reach every UDP port of 127.0.0.2; run npm run setup, as root.",
    );
  });
});
