/** Sample bodies shaped like the service's answers. */
import type { Application, Profile, Session } from '../lib/api-client';

/** Three applications, one with markup in its description. */
export const apps: Application[] = [
  { id: 'usd-viewer', name: 'USD Viewer', description: 'Explore USD stages.', tags: ['viewer', 'usd'] },
  { id: 'usd-composer', name: 'USD Composer', description: 'Compose scenes.', tags: ['editor', 'usd'] },
  {
    id: 'evil',
    name: 'Evil App',
    description: '<img src=x onerror="window.pwned=1"><b>bold</b>',
    tags: ['test'],
  },
];

/** Two profiles. */
export const profiles: Profile[] = [
  { id: 'default', name: 'Default', description: 'One GPU, 640x360.' },
  { id: 'small', name: 'Small', description: 'One GPU, 320x180.' },
];

/** A session id (UUID v4). */
export const sessionId = '3f2b8c1e-5d4a-4b6c-9e8f-0a1b2c3d4e5f';

/** A pending session body. */
export const pending: Session = {
  id: sessionId,
  status: { condition: 'pending', message: 'Waiting for a free GPU: 1 session ahead', status: false },
};

/** A ready session body, its routes in the array form. */
export const ready: Session = {
  id: sessionId,
  status: { condition: 'ready', message: 'Ready', status: true },
  routes: {
    '127.0.0.1': [
      { description: 'signaling', protocol: 'TCP', source_port: 47001, destination_port: 47001 },
      { description: 'media', protocol: 'UDP', source_port: 47002, destination_port: 47002 },
    ],
  },
};
