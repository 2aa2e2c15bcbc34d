import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('loadConfig', () => {
  it('gives the contract defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      catalogPath: path.join(root, 'catalog.yaml'),
      dataDir: path.join(root, '.streamgate'),
      tokensPath: null,
      trustProxy: [],
      publicHost: '127.0.0.1',
      portRange: { first: 47000, last: 47999 },
      capacity: 2,
      queueLimit: 16,
      allowAnonymous: false,
      staticDir: path.join(root, 'dist'),
      corsOrigins: [],
      logLevel: 'info',
      rateLimit: { perMinute: 30, burst: 10 },
      userLimit: 4,
      userGpuShare: 50,
      cspConnect: [],
      runner: 'local',
      door: {
        signaling: 'auto',
        turn: { kind: 'embedded', port: 3478, relayPorts: { first: 48000, last: 48999 } },
        mediaDoor: { host: '127.0.0.2', port: 3480 },
      },
    });
  });

  it("reads the door's settings (CONTRACT §21) and refuses bad ones in one sentence", () => {
    expect(loadConfig({ STREAMGATE_SIGNALING: 'door', STREAMGATE_TURN_PORT: 'off' }).door).toMatchObject({
      signaling: 'door',
      turn: { kind: 'off' },
    });
    expect(
      loadConfig({
        STREAMGATE_TURN_URLS: 'turn:turn.site.org:3478?transport=udp, turns:turn.site.org:443?transport=tcp',
        STREAMGATE_TURN_SECRET: 'shh',
      }).door?.turn,
    ).toEqual({
      kind: 'site',
      urls: ['turn:turn.site.org:3478?transport=udp', 'turns:turn.site.org:443?transport=tcp'],
      secret: 'shh',
    });
    expect(() => loadConfig({ STREAMGATE_SIGNALING: 'sideways' })).toThrow(
      'STREAMGATE_SIGNALING=sideways must be auto, door or direct.',
    );
    expect(() => loadConfig({ STREAMGATE_TURN_URLS: 'turn:a' })).toThrow(/STREAMGATE_TURN_SECRET is not/);
    expect(() => loadConfig({ STREAMGATE_TURN_SECRET: 's' })).toThrow(/without STREAMGATE_TURN_URLS/);
    expect(() => loadConfig({ STREAMGATE_TURN_URLS: 'http://x', STREAMGATE_TURN_SECRET: 's' })).toThrow(
      /is not a TURN URL/,
    );
    expect(() => loadConfig({ STREAMGATE_TURN_PORT: '70000' })).toThrow(/must be a port/);
    expect(() => loadConfig({ STREAMGATE_TURN_RELAY_PORTS: '9-1' })).toThrow(/must look like 48000-48999/);
    expect(() => loadConfig({ STREAMGATE_DOOR_MEDIA: 'localhost' })).toThrow(
      /must be an IPv4 address and a port/,
    );
  });

  it("refuses a display session's encoder rest that is not a number of seconds up to a day", () => {
    expect(() => loadConfig({ STREAMGATE_ENCODER_REST_S: '0' })).not.toThrow();
    expect(() => loadConfig({ STREAMGATE_ENCODER_REST_S: 'soon' })).toThrow(/STREAMGATE_ENCODER_REST_S/);
    expect(() => loadConfig({ STREAMGATE_ENCODER_REST_S: '90000' })).toThrow(/STREAMGATE_ENCODER_REST_S/);
  });

  it('runs sessions as Slurm jobs on STREAMGATE_RUNNER=slurm, sharing the data directory by default', () => {
    expect(loadConfig({ STREAMGATE_RUNNER: 'slurm' })).toMatchObject({
      runner: 'slurm',
      slurmDir: path.join(root, '.streamgate', 'slurm'),
      slurmLaunch: 'batch',
    });
    expect(loadConfig({ STREAMGATE_RUNNER: 'slurm', STREAMGATE_SLURM_LAUNCH: 'step' }).slurmLaunch).toBe(
      'step',
    );
    expect(() => loadConfig({ STREAMGATE_RUNNER: 'slurm', STREAMGATE_SLURM_LAUNCH: 'srun' })).toThrow(
      'STREAMGATE_SLURM_LAUNCH=srun must be batch or step.',
    );
    expect(loadConfig({ STREAMGATE_RUNNER: 'slurm', STREAMGATE_SLURM_DIR: '/shared/sg' }).slurmDir).toBe(
      '/shared/sg',
    );
    expect(() => loadConfig({ STREAMGATE_RUNNER: 'pbs' })).toThrow(
      'STREAMGATE_RUNNER=pbs must be local or slurm.',
    );
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      STREAMGATE_TOKENS: 'tokens.yaml',
      STREAMGATE_PORT_RANGE: '48000-48010',
      STREAMGATE_CAPACITY: '4',
      STREAMGATE_QUEUE_LIMIT: '0',
      STREAMGATE_CORS_ORIGINS: 'https://a.example, http://localhost:5173',
      LOG_LEVEL: 'WARN',
      STREAMGATE_RATE_LIMIT: '2/s',
      STREAMGATE_RATE_BURST: '5',
      STREAMGATE_CSP_CONNECT: 'https://media.example:* wss://relay.example',
      STREAMGATE_TRUST_PROXY: '10.0.0.5, 192.168.0.0/16 loopback',
    });
    expect(config).toMatchObject({
      port: 9000,
      tokensPath: path.resolve('tokens.yaml'),
      portRange: { first: 48000, last: 48010 },
      capacity: 4,
      queueLimit: 0,
      corsOrigins: ['https://a.example', 'http://localhost:5173'],
      logLevel: 'warn',
      trustProxy: ['10.0.0.5', '192.168.0.0/16', 'loopback'],
      rateLimit: { perMinute: 120, burst: 5 },
      cspConnect: ['https://media.example:*', 'wss://relay.example'],
    });
  });

  it('turns the rate limit off when asked', () => {
    expect(loadConfig({ STREAMGATE_RATE_LIMIT: 'off' }).rateLimit).toBeNull();
    expect(loadConfig({ STREAMGATE_RATE_LIMIT: '600/hour' }).rateLimit).toEqual({ perMinute: 10, burst: 10 });
  });

  it('reads the per-user limit, with off or 0 for none', () => {
    expect(loadConfig({ STREAMGATE_USER_LIMIT: ' 12 ' }).userLimit).toBe(12);
    expect(loadConfig({ STREAMGATE_USER_LIMIT: 'OFF' }).userLimit).toBeNull();
    expect(loadConfig({ STREAMGATE_USER_LIMIT: '0' }).userLimit).toBeNull();
  });

  it("reads a user's share of the GPUs as a percentage, with off or 0 for none", () => {
    expect(loadConfig({ STREAMGATE_USER_GPU_SHARE: ' 75% ' }).userGpuShare).toBe(75);
    expect(loadConfig({ STREAMGATE_USER_GPU_SHARE: '100' }).userGpuShare).toBe(100);
    expect(loadConfig({ STREAMGATE_USER_GPU_SHARE: 'Off' }).userGpuShare).toBeNull();
    expect(loadConfig({ STREAMGATE_USER_GPU_SHARE: '0' }).userGpuShare).toBeNull();
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT=eighty is not a whole number/],
    [{ PORT: '70000' }, /PORT=70000 must be between 0 and 65535/],
    [{ STREAMGATE_CAPACITY: '0' }, /STREAMGATE_CAPACITY=0 must be between 1/],
    [{ STREAMGATE_PORT_RANGE: '48010-48000' }, /first not above the last/],
    [{ STREAMGATE_PORT_RANGE: 'many' }, /must look like 47000-47999/],
    [{ STREAMGATE_ALLOW_ANONYMOUS: 'maybe' }, /must be 1 or 0/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL=loud must be one of/],
    [{ STREAMGATE_CORS_ORIGINS: 'https://a.example/path' }, /must be a bare origin/],
    [{ HOST: '0.0.0.0' }, /STREAMGATE_TOKENS is not set/],
    [{ STREAMGATE_RATE_LIMIT: 'lots' }, /must look like 30\/min/],
    [{ STREAMGATE_RATE_LIMIT: '0/min' }, /must look like 30\/min/],
    [{ STREAMGATE_RATE_BURST: '0' }, /STREAMGATE_RATE_BURST=0 must be between 1/],
    [{ STREAMGATE_USER_LIMIT: 'four' }, /STREAMGATE_USER_LIMIT=four is not a whole number/],
    [{ STREAMGATE_USER_GPU_SHARE: 'half' }, /STREAMGATE_USER_GPU_SHARE=half must be a percentage/],
    [{ STREAMGATE_USER_GPU_SHARE: '150%' }, /STREAMGATE_USER_GPU_SHARE=150% must be a percentage/],
    [{ STREAMGATE_CSP_CONNECT: "https://a.example 'unsafe-eval'" }, /must be a source like/],
    [{ STREAMGATE_CSP_CONNECT: 'https://a.example;script-src *' }, /must be a source like/],
    [{ STREAMGATE_TRUST_PROXY: 'proxy.example' }, /TRUST_PROXY: "proxy.example" must be an address/],
    [{ STREAMGATE_TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY: "10.0.0.0\/33" must be an address/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('allows a non-loopback HOST without tokens when anonymous access is asked for', () => {
    expect(loadConfig({ HOST: '0.0.0.0', STREAMGATE_ALLOW_ANONYMOUS: '1' }).allowAnonymous).toBe(true);
  });
});
