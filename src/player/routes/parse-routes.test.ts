import { describe, expect, it } from 'vitest';
import { hostPort, normaliseRoutes, parseRoutes, RoutesError } from './parse-routes';

const signaling = { description: 'signaling', protocol: 'TCP', source_port: 49210, destination_port: 49210 };
const media = { description: 'media', protocol: 'UDP', source_port: 47810, destination_port: 47811 };

describe('parseRoutes', () => {
  it('reads the array shape', () => {
    expect(parseRoutes({ '127.0.0.1': [signaling, media] })).toEqual({
      host: '127.0.0.1',
      signalingPort: 49210,
      mediaPort: 47810,
    });
  });

  it('reads the {routes: [...]} shape and uses source ports, not destination ports', () => {
    expect(parseRoutes({ '10.0.0.5': { routes: [media, signaling] } })).toEqual({
      host: '10.0.0.5',
      signalingPort: 49210,
      mediaPort: 47810,
    });
  });

  it('keeps a DNS host name as it is', () => {
    expect(parseRoutes({ 'stream-7.example.org': [signaling, media] }).host).toBe('stream-7.example.org');
  });

  it('skips a host without both routes and takes the next one', () => {
    const endpoint = parseRoutes({ 'a.example': [signaling], 'b.example': { routes: [signaling, media] } });
    expect(endpoint.host).toBe('b.example');
  });

  it('refuses missing, empty or incomplete routes', () => {
    expect(() => parseRoutes(undefined)).toThrow(RoutesError);
    expect(() => parseRoutes({})).toThrow(/no routes/);
    expect(() => parseRoutes({ h: [media] })).toThrow(/no signaling and media/);
    expect(() => parseRoutes({ h: [{ ...signaling, source_port: 'x' }, media] })).toThrow(RoutesError);
    expect(() => parseRoutes({ h: 'nonsense' })).toThrow(RoutesError);
  });
});

describe('normaliseRoutes', () => {
  it('gives every host its list of routes, whichever shape the service sent, and leaves out the rest', () => {
    expect(normaliseRoutes({ a: [signaling], b: { routes: [media] }, c: 'nonsense', d: [1, media] })).toEqual(
      {
        a: [signaling],
        b: [media],
        d: [media],
      },
    );
    expect(normaliseRoutes(undefined)).toBeUndefined();
    expect(normaliseRoutes([signaling])).toBeUndefined();
  });
});

describe('hostPort', () => {
  it('brackets IPv6 literals only', () => {
    expect(hostPort('::1', 80)).toBe('[::1]:80');
    expect(hostPort('[::1]', 80)).toBe('[::1]:80');
    expect(hostPort('host.example', 80)).toBe('host.example:80');
  });
});
