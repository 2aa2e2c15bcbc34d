/**
 * The methods each API address takes, recorded as routes are registered, so that an address asked with
 * another method answers 405 with `Allow` (RFC 9110, section 15.5.6) rather than the 404 of an address
 * that does not exist.
 */
import type { FastifyInstance } from 'fastify';

/** The catch-all of unknown API addresses, which is no address of its own. */
const CATCH_ALL = '/api/*';

/** A route's path as a pattern: `:name` is one segment, `*` anything. */
function patternOf(url: string): RegExp {
  const escaped = url.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}$`);
}

/**
 * Starts recording the API's routes (install before any is registered); the function returned gives
 * the methods that `path` (without its query) takes, sorted, or none for an unknown address.
 */
export function recordApiRoutes(app: FastifyInstance): (path: string) => string[] {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.url === CATCH_ALL) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    routes.push({ pattern: patternOf(route.url), methods: methods.map(String) });
  });
  return (path) => {
    const allowed = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    return [...allowed].sort();
  };
}
