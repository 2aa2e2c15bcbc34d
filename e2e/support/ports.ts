/** Free loopback ports, for the specs and benchmarks that import them from here: test-support/ports.ts. */
export { freePort, freeUdpPort } from '../../test-support/ports';
