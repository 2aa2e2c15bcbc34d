/**
 * Shared by the service's tests: an app built on a catalog whose versions launch the stand-in
 * application, with a real session manager on a temporary data directory, or with an in-memory one for the
 * tests of the HTTP layer alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.ts';
import { AuditLog } from '../server/audit/audit-log.ts';
import { OidcVerifier } from '../server/auth/oidc.ts';
import { hashToken, TokenStore } from '../server/auth/tokens.ts';
import { ViewerTickets } from '../server/auth/viewer-tickets.ts';
import { parseCatalog } from '../server/catalog/load-catalog.ts';
import type { ServiceConfig } from '../server/config.ts';
import { MemoryManager, type MemoryManagerOptions } from './memory-manager.ts';
import { standInCommand, testManager, testOptions, type TestSettings } from './session-support.ts';
import { STAND_IN_FILE } from './stand-in-bundle.ts';
import type { SessionManager } from '../server/sessions/types.ts';

/** A catalog whose `usd-viewer` runs the stand-in; `flags` go to the stand-in of every version. */
export function standInCatalog(flags: string[] = []): string {
  const command = standInCommand(flags);
  // files: a service that sandboxes it finds the stand-in beside the catalog (copyStandInTo).
  const launch = `launch: {command: ${JSON.stringify(command)}, files: [${STAND_IN_FILE}]}`;
  return `applications:
  - id: usd-viewer
    name: USD Viewer
    description: Explore USD stages.
    tags: [viewer, usd]
    versions:
      - {version: 1.9.0, description: Nine., ${launch}}
      - {version: 1.10.0, description: Ten., ${launch}}
      - {version: 2.0.0-rc.1, description: Candidate., ${launch}}
      - {version: "1.0.0+build.5", description: Built., ${launch}}
  - id: composer
    name: Composer
    description: Edit USD stages.
    tags: [editor, usd]
    versions:
      - {version: 0.1.0-beta.11, description: Beta eleven., ${launch}}
      - {version: 0.1.0-rc.1, description: Candidate one., ${launch}}
  - id: crasher
    name: Crasher
    description: Becomes ready, then exits.
    tags: [test]
    versions:
      - {version: 1.0.0, description: Exits., launch: {command: ${JSON.stringify([...command, '--exit-after-ms', '400'])}, files: [${STAND_IN_FILE}]}}
profiles:
  - id: default
    name: Default
    description: Everything.
    applications: [{id: "*", versions: ["*"]}]
    settings: {width: 640, height: 360, startup_timeout_s: 60}
  - id: ten-only
    name: Ten only
    description: Only USD Viewer 1.10.0.
    applications: [{id: usd-viewer, versions: [1.10.0]}]
`;
}

/** Tokens of the test users: alice and bob are users, vera a viewer, ada an admin. */
export const TOKENS = { alice: 'alice-token', bob: 'bob-token', vera: 'vera-token', ada: 'ada-token' };
export const TOKENS_YAML = `tokens:
  - {user: alice, roles: [user], token_sha256: ${hashToken(TOKENS.alice)}}
  - {user: bob, roles: [user], token_sha256: ${hashToken(TOKENS.bob)}}
  - {user: vera, roles: [viewer], token_sha256: ${hashToken(TOKENS.vera)}}
  - {user: ada, roles: [admin], token_sha256: ${hashToken(TOKENS.ada)}}
`;

export function bearer(user: keyof typeof TOKENS): Record<string, string> {
  return { authorization: `Bearer ${TOKENS[user]}` };
}

export interface TestApp {
  app: FastifyInstance;
  manager: SessionManager;
  dataDir: string;
  /** Closes the app, stops the manager (no process left) and, unless kept, removes the data directory. */
  close(keepData?: boolean): Promise<void>;
}

export interface TestAppOptions {
  catalog?: string;
  tokens?: boolean;
  ports: { first: number; last: number };
  manager?: Partial<TestSettings>;
  dataDir?: string;
  staticDir?: string;
  config?: Partial<ServiceConfig>;
  /** The identity provider's verifier; by default, discovered from `config.oidc` when that is set. */
  oidc?: OidcVerifier;
  /** Where a runner of a cluster would place applications (`Runner.connectSources`); none by default. */
  connectSources?: string[];
}

export function testConfig(overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    catalogPath: 'catalog.yaml',
    dataDir: '.streamgate',
    tokensPath: null,
    publicHost: '127.0.0.1',
    portRange: { first: 28200, last: 28299 },
    capacity: 2,
    queueLimit: 16,
    allowAnonymous: false,
    staticDir: path.join(tmpdir(), 'streamgate-no-portal'),
    corsOrigins: [],
    logLevel: 'silent',
    ...overrides,
  };
}

/** Builds and starts an app with a real manager. */
export async function startTestApp(options: TestAppOptions): Promise<TestApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'streamgate-app-')));
  const { first, last } = options.ports;
  // One GPU and a queue of one, so that the HTTP tests reach the 202 and 503 paths with few sessions.
  const manager = testManager({
    ...testOptions(dataDir, first, last),
    capacity: 1,
    queueLimit: 1,
    ...options.manager,
  });
  await manager.start();
  return appOver(manager, dataDir, options);
}

export interface MemoryTestApp extends TestApp {
  manager: MemoryManager;
}

export type MemoryTestAppOptions = Omit<TestAppOptions, 'ports' | 'manager'> & {
  manager?: Omit<MemoryManagerOptions, 'tickets'>;
};

/**
 * Builds an app over an in-memory manager (memory-manager.ts), whose sessions the test moves from phase to
 * phase: for tests of what the routes answer, which need no application running. Its tickets are signed with
 * the data directory's key, as the real manager's are.
 */
export async function startMemoryApp(options: MemoryTestAppOptions = {}): Promise<MemoryTestApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'streamgate-app-')));
  const manager = new MemoryManager({ tickets: await ViewerTickets.open(dataDir), ...options.manager });
  return { ...(await appOver(manager, dataDir, options)), manager };
}

/** The app over `manager`, which it stops on close. */
async function appOver(
  manager: SessionManager,
  dataDir: string,
  options: Omit<TestAppOptions, 'ports' | 'manager'>,
): Promise<TestApp> {
  const catalog = parseCatalog(options.catalog ?? standInCatalog(), 'catalog.yaml');
  const tokens = options.tokens ? TokenStore.parse(TOKENS_YAML, 'tokens.yaml') : null;
  const config = testConfig({
    // The manager's: the routes find the applications' files (their stills) there too.
    dataDir,
    staticDir: options.staticDir ?? path.join(dataDir, 'no-portal'),
    ...options.config,
  });
  const oidc = options.oidc ?? (config.oidc ? await OidcVerifier.discover(config.oidc) : null);
  // Closed after the manager, as the service does: the sessions its stop ends are audited too.
  const audit = new AuditLog(dataDir);
  const { connectSources } = options;
  const app = await buildApp(config, { catalog, manager, tokens, oidc, audit, connectSources });
  return {
    app,
    manager,
    dataDir,
    async close(keepData = false) {
      await app.close();
      await manager.stop();
      await audit.close();
      if (!keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
