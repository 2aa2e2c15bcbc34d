/**
 * Security headers. Every answer says nosniff and sends no referrer; the portal's pages and files also
 * carry a Content-Security-Policy that allows only the portal's own scripts, and media connections to the
 * applications, which listen on other ports of the public host (WHEP signaling).
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

export interface SecurityHeaderOptions {
  /** STREAMGATE_PUBLIC_HOST: applications are reached on ports of this host. */
  publicHost: string;
  /** STREAMGATE_CSP_CONNECT: further sources for connect-src (another signaling host, a TURN relay ...). */
  extraConnect: string[];
  /** Origins of the catalog's icon URLs, for img-src: the catalog's author chose them. */
  imageSources?: string[];
  /** Origins the portal may frame: the identity provider's, for silent renewal of sign-in (CONTRACT §22). */
  frameSources?: string[];
}

/** The portal's Content-Security-Policy. */
export function contentSecurityPolicy(options: SecurityHeaderOptions): string {
  // An IPv6 literal needs brackets in a source expression, as in a URL.
  const host = options.publicHost.includes(':') ? `[${options.publicHost}]` : options.publicHost;
  const connect = ["'self'", `http://${host}:*`, `https://${host}:*`, ...options.extraConnect];
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Emotion (MUI's styling) inserts <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    `connect-src ${connect.join(' ')}`,
    ["img-src 'self' data: blob:", ...(options.imageSources ?? [])].join(' '),
    "media-src 'self' blob:",
    ...(options.frameSources?.length ? [["frame-src 'self'", ...options.frameSources].join(' ')] : []),
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Adds the headers to every answer; the CSP to everything outside /api (the API docs bring their own scripts). */
const securityHeadersPlugin: FastifyPluginAsync<SecurityHeaderOptions> = async (app, options) => {
  const policy = contentSecurityPolicy(options);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    const url = request.url;
    if (url !== '/api' && !url.startsWith('/api/') && !url.startsWith('/api?')) {
      reply.header('content-security-policy', policy);
      // For browsers that predate frame-ancestors.
      reply.header('x-frame-options', 'DENY');
    }
    done(null, payload);
  });
};

/** For the whole app (fastify-plugin): the hook must see the answers of routes registered beside it. */
export const securityHeaders = fp(securityHeadersPlugin, {
  name: 'streamgate-security-headers',
  fastify: '5.x',
});
