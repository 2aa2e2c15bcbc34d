import { spawn, type ChildProcess } from 'node:child_process';
import { PeerConnection } from 'node-datachannel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inheritableDescriptors, spawnIsolated } from './spawn-isolated.ts';

/** What the child's descriptors above stderr point to, as `readlink` prints it. */
function childDescriptors(start: (file: string, args: string[]) => ChildProcess): Promise<string[]> {
  // The listing runs in the shell itself (no subshell), so it sees exactly what the child was given.
  const script = 'for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && readlink "$f"; done; true';
  const child = start('sh', ['-c', script]);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.on('close', () => resolve(out.trim().split('\n'))));
}

describe('spawnIsolated', () => {
  let pc: PeerConnection;

  beforeAll(async () => {
    // libjuice opens its UDP socket without close-on-exec, as it does for the application's media port.
    pc = new PeerConnection('leaky', { iceServers: [], disableAutoNegotiation: true });
    const gathered = new Promise<void>((resolve) =>
      pc.onGatheringStateChange((state) => state === 'complete' && resolve()),
    );
    pc.createDataChannel('probe');
    pc.setLocalDescription();
    await gathered;
  });

  afterAll(() => pc.close());

  it('finds the socket that an exec would hand down', () => {
    expect(inheritableDescriptors().length).toBeGreaterThan(0);
  });

  it('hands the socket to a plain spawn (the bug it guards against)', async () => {
    const targets = await childDescriptors((file, args) =>
      spawn(file, args, { stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    expect(targets.filter((t) => t.startsWith('socket:')).length).toBeGreaterThan(0);
  });

  it('gives the child nothing but its stdio', async () => {
    const targets = await childDescriptors((file, args) =>
      spawnIsolated(file, args, { stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    expect(targets.filter((t) => t.startsWith('socket:'))).toEqual([]);
  });
});
