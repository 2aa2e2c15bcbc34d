/**
 * server/main.ts as a real process with sign-in through a real OpenID provider (CONTRACT §22): it stops at
 * start-up with one sentence when the issuer cannot be read, and otherwise takes the provider's access tokens
 * beside the tokens file, one person for both: a session launched with alice's static token is alice's under
 * her access token too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIssuer, type OidcIssuer } from '../../test-support/oidc-issuer.ts';
import {
  ProcessStartError,
  startService,
  stopStartedServices,
  type Service,
} from '../../test-support/service.ts';
import { bearer, standInCatalog, TOKENS_YAML } from '../../test-support/test-support.ts';

// This file's ports: the issuer 28640, the service 28641, sessions 28642-28647, nothing listens on 28648.
const PORTS = { issuer: 28640, service: 28641, sessions: { first: 28642, last: 28647 }, nothing: 28648 };
const services: Service[] = [];
let issuer: OidcIssuer;

beforeAll(async () => {
  issuer = await startOidcIssuer({ port: PORTS.issuer });
});
afterEach(async () => {
  await stopStartedServices();
  for (const service of services.splice(0)) await service.close();
});
afterAll(() => issuer.stop());

describe('server/main.ts with an identity provider', () => {
  it('stops at start-up with one sentence when the issuer cannot be read', async () => {
    const unreachable = `http://127.0.0.1:${PORTS.nothing}`;
    const error = await startService({
      port: PORTS.service,
      portal: false,
      env: issuer.env({ STREAMGATE_OIDC_ISSUER: unreachable }),
    }).then(
      (service) => (services.push(service), undefined),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ProcessStartError);
    const { exitCode, output } = error as ProcessStartError;
    expect(exitCode).toBe(1);
    expect(output.trim()).toBe(
      `streamgate: STREAMGATE_OIDC_ISSUER=${unreachable}: cannot read its discovery document at ` +
        `${unreachable}/.well-known/openid-configuration (connection refused).`,
    );
  });

  it("takes the provider's access tokens beside static tokens: alice's session is hers by either", async () => {
    const service = await startService({
      port: PORTS.service,
      portal: false,
      catalog: standInCatalog(),
      tokens: TOKENS_YAML,
      sessionPorts: PORTS.sessions,
      env: issuer.env(),
    });
    services.push(service);
    expect(service.output()).toContain(
      `  access    people signed in at ${issuer.issuer}, and tokens from ${service.workDir}/tokens.yaml`,
    );
    const alice = { authorization: `Bearer ${await issuer.accessToken('alice')}` };
    const created = await fetch(`${service.api}/stream`, {
      method: 'POST',
      headers: { ...bearer('alice'), 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'usd-viewer', profile: 'default' }),
    });
    expect(created.ok).toBe(true);
    const { id } = (await created.json()) as { id: string };
    const listed = (await (await fetch(`${service.api}/stream`, { headers: alice })).json()) as {
      items: { id: string }[];
    };
    expect(listed.items.map((item) => item.id)).toEqual([id]);
    // root, an admin by group, sees it too; ended by alice's access token, as her own.
    const root = { authorization: `Bearer ${await issuer.accessToken('root')}` };
    expect((await fetch(`${service.api}/stream/${id}`, { headers: root })).status).toBe(200);
    const ended = await fetch(`${service.api}/stream/${id}`, { method: 'DELETE', headers: alice });
    expect(ended.status).toBe(204);
    expect((await fetch(`${service.api}/stream`, { headers: {} })).status).toBe(403);
  });
});
