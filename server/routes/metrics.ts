/**
 * Prometheus metrics at GET /metrics, for admins only: sessions by state, queue length and request durations.
 * A registry per app, so that several apps in one process (tests, benchmarks) do not share counters.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isAdmin } from '../auth/tokens.ts';
import type { SessionManager } from '../sessions/types.ts';
import { forbidden } from '../errors.ts';
import type { Door } from '../door/door.ts';

export interface MetricsOptions {
  manager: SessionManager;
  /** Node process metrics (event loop, memory): off where apps share one process. */
  processMetrics?: boolean;
  /** The door, whose relayed viewers and bytes are counted (CONTRACT §21); absent: not counted. */
  door?: Door;
}

/** Counts the duration of every answer and adds the /metrics route. */
const metricsPlugin: FastifyPluginAsync<MetricsOptions> = async (app, options) => {
  const { manager, processMetrics = false } = options;
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'streamgate_sessions',
    help: 'Sessions by state; warm: applications started ahead of demand, not yet claimed.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const counts = manager.counts();
      this.set({ state: 'pending' }, counts.pending);
      this.set({ state: 'ready' }, counts.ready);
      this.set({ state: 'failed' }, counts.failed);
      this.set({ state: 'warm' }, counts.warm);
    },
  });
  new Gauge({
    name: 'streamgate_queue_length',
    help: 'Sessions waiting for capacity.',
    registers: [registry],
    collect() {
      this.set(manager.counts().queued);
    },
  });
  const { door } = options;
  if (door) {
    new Gauge({
      name: 'streamgate_door_relayed_viewers',
      help: 'Viewers the media door lets through the TURN relay, and their relayed connections open now.',
      labelNames: ['what'],
      registers: [registry],
      collect() {
        const figures = door.figures();
        this.set({ what: 'viewers' }, figures.relayedViewers);
        this.set({ what: 'flows' }, figures.relayedFlows);
      },
    });
    new Gauge({
      name: 'streamgate_door_relayed_bytes',
      help: 'Bytes through the media door since the start: to sessions (in) and to viewers (out).',
      labelNames: ['direction'],
      registers: [registry],
      collect() {
        const figures = door.figures();
        this.set({ direction: 'in' }, figures.relayBytesIn);
        this.set({ direction: 'out' }, figures.relayBytesOut);
      },
    });
  }
  const durations = new Histogram({
    name: 'streamgate_http_request_duration_seconds',
    help: 'Time to answer HTTP requests.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL, so that ids do not make one series per session.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status_code: String(reply.statusCode) };
    durations.observe(labels, reply.elapsedTime / 1000);
  });

  app.get('/metrics', async (request, reply) => {
    // Without a tokens file every caller is an admin, so the metrics stay open on a loopback service.
    if (!isAdmin(request.principal)) {
      throw forbidden('The metrics are for administrators; use a token with the admin role.');
    }
    reply.type(registry.contentType);
    return registry.metrics();
  });
};

/** For the whole app (fastify-plugin): the hook must count the answers of routes registered beside it. */
export const metrics = fp(metricsPlugin, { name: 'streamgate-metrics', fastify: '5.x' });
