import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { components } from '../../api/schema.ts';
import { contractRoute, operationRoute } from './contract.ts';
import { errorHandler } from './error-handler.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A bare app with the one route under /api, answering through the service's error handler. */
async function appWith(register: (api: FastifyInstance) => void): Promise<FastifyInstance> {
  app = Fastify();
  app.setErrorHandler(errorHandler);
  await app.register(async (api) => register(api), { prefix: '/api' });
  await app.ready();
  return app;
}

describe('a contract route', () => {
  it('takes its method and address from its operationId', () => {
    expect(operationRoute('getVersion')).toMatchObject({
      method: 'GET',
      url: '/cfg/apps/:id/versions/:version',
    });
    expect(operationRoute('deleteSessionByBody')).toMatchObject({ method: 'DELETE', url: '/stream' });
  });

  it('refuses, at start-up, an operation the contract does not have', () => {
    expect(() => operationRoute('getNothing')).toThrow('api/openapi.yaml has no operation "getNothing"');
  });

  it('writes its answers by the contract: a field the contract does not name is left out', async () => {
    const api = await appWith((api) =>
      contractRoute(api, 'getProfile', {
        handler: async () =>
          ({ id: 'default', name: 'Default', description: 'One GPU.', secret: 'internal' }) as never,
      }),
    );
    const res = await api.inject({ method: 'GET', url: '/api/cfg/apps/a/versions/*/profiles/default' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'default', name: 'Default', description: 'One GPU.' });
  });

  it('keeps what the contract leaves open: session arguments and routes of any host', async () => {
    const session: components['schemas']['Session'] = {
      id: '0b9c7c53-3f55-4c61-9d0e-3a4c3a3d3f10',
      status: { condition: 'ready', message: 'Ready', status: true },
      routes: {
        'stream.example': [
          { description: 'signaling', protocol: 'TCP', source_port: 27000, destination_port: 27000 },
        ],
      },
      arguments: { usd_stage_uri: 'x.usd', nested: { depth: [1, 'two'] } },
    };
    const api = await appWith((api) =>
      contractRoute(api, 'getSession', { handler: async (_request, reply) => reply.code(200).send(session) }),
    );
    const res = await api.inject({ method: 'GET', url: `/api/stream/${session.id}` });
    expect(res.json()).toEqual(session);
  });

  it('keeps every declared argument as the catalog gave it, defaults of each type included', async () => {
    const versions: components['schemas']['VersionList'] = {
      count: 2,
      items: [
        {
          version: '1.2.0',
          arguments: [
            {
              name: 'model',
              label: 'Model',
              type: 'choice',
              choices: ['a.obj', 'b.obj'],
              default: 'a.obj',
              required: true,
            },
            { name: 'fps', label: 'Frames a second', type: 'number', default: 30, required: false },
            { name: 'scale', label: 'Scale', type: 'number', default: 1.5, required: false },
            {
              name: 'grid',
              label: 'Grid',
              type: 'boolean',
              default: false,
              description: 'Draw it.',
              required: false,
            },
            { name: 'title', label: 'Title', type: 'string', required: false },
          ],
        },
        { version: '1.1.0' },
      ],
    };
    const api = await appWith((api) => contractRoute(api, 'listVersions', { handler: async () => versions }));
    const res = await api.inject({ method: 'GET', url: '/api/cfg/apps/a/versions' });
    expect(res.json()).toEqual(versions);
  });

  it('checks the request against the contract before its handler runs', async () => {
    let called = false;
    const api = await appWith((api) =>
      contractRoute(api, 'getApp', {
        handler: async () => {
          called = true;
          return { id: 'a', name: 'A', description: '', tags: [] };
        },
      }),
    );
    const res = await api.inject({ method: 'GET', url: '/api/cfg/apps/-bad' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'string_pattern_mismatch' });
    expect(called).toBe(false);
  });

  it('writes a refusal by the contract too', async () => {
    const api = await appWith((api) =>
      contractRoute(api, 'getCapacity', {
        handler: async (_request, reply) => reply.code(403).send({ detail: 'No.', stack: 'at x' } as never),
      }),
    );
    const res = await api.inject({ method: 'GET', url: '/api/admin/capacity' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'No.' });
  });
});
