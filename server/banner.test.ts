import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { banner, type BannerInfo } from './banner.ts';

const info: BannerInfo = {
  host: '127.0.0.1',
  port: 8080,
  catalogPath: path.join(process.cwd(), 'catalog.yaml'),
  apps: 3,
  profiles: 1,
  capacity: 2,
  queueLimit: 16,
  dataDir: path.join(process.cwd(), '.streamgate'),
  tokensPath: null,
  terminal: true,
};

describe('start-up banner', () => {
  it('says where to open the portal and the API, and what the service serves', () => {
    expect(banner(info).split('\n')).toEqual([
      'Streamgate is running at http://127.0.0.1:8080/',
      '  API       http://127.0.0.1:8080/api (docs at http://127.0.0.1:8080/api/docs)',
      '  catalog   catalog.yaml: 3 applications, 1 profile',
      '  sessions  2 at once, 16 waiting; state in .streamgate',
      '  access    no tokens file: anyone who reaches the address',
      'Ctrl-C stops the service and every application it started.',
    ]);
  });

  it('gives a service on every interface an address to open here, and names a tokens file', () => {
    const lines = banner({
      ...info,
      host: '0.0.0.0',
      tokensPath: '/etc/streamgate/tokens.yaml',
      terminal: false,
    });
    expect(lines).toContain('Streamgate is running at http://127.0.0.1:8080/ (listening on every interface)');
    expect(lines).toContain('access    tokens from /etc/streamgate/tokens.yaml');
    expect(lines).not.toContain('Ctrl-C');
    expect(banner({ ...info, host: '::1' })).toContain('http://[::1]:8080/');
  });

  it('says how viewers get in: the door and its relay, or why there is no relay', () => {
    const embedded = banner({ ...info, door: { signaling: 'auto', relay: 'embedded', turnPort: 3478 } });
    expect(embedded).toContain(
      '  door      WHEP through this address for sessions on other hosts; TURN relay on port 3478 (UDP and TCP)',
    );
    const missing = banner({
      ...info,
      door: { signaling: 'door', relay: 'none', relayProblem: 'coturn is not installed.' },
    });
    expect(missing).toContain(
      '  door      WHEP through this address; no TURN relay (coturn is not installed.)',
    );
  });

  it('says that sessions are Slurm jobs, and where the service and the nodes share their files', () => {
    const lines = banner({ ...info, slurmDir: '/shared/streamgate' }).split('\n');
    expect(lines).toContain(
      "  sessions  Slurm jobs (Slurm's queue is the queue), shared through /shared/streamgate; state in .streamgate",
    );
  });

  it('says who may use the service: people signed in at the identity provider, and holders of tokens', () => {
    const oidc = { issuer: 'https://login.example.org/realms/site' };
    expect(banner({ ...info, oidc })).toContain(
      '  access    people signed in at https://login.example.org/realms/site\n',
    );
    expect(banner({ ...info, oidc, tokensPath: '/etc/streamgate/tokens.yaml' })).toContain(
      '  access    people signed in at https://login.example.org/realms/site, and tokens from ' +
        '/etc/streamgate/tokens.yaml',
    );
  });
});
